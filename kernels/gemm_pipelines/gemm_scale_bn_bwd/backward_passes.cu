// The backward's memory-bound passes (backward_passes.hpp): the one-read column reduction with
// its per-column finish, the dg writer, and autograd's one-kernel-per-step pieces.
#include <cstdint>

#include "harness/cuda_check.hpp"
#include "kernels/gemm_pipelines/gemm_scale_bn_bwd/backward_passes.hpp"
#include "kernels/gemm_pipelines/gemm_scale_bn_bwd/column_reduce.cuh"
#include "kernels/gemm_pipelines/gemm_scale_bn_bwd/dg_affine.cuh"

namespace nb::gemm_scale_bn_bwd {
namespace {

using dev::chunk_total;
using dev::column_chunks;
using dev::dg_value;
using dev::dg_value4;

__device__ inline float xhat_of(const Args& a, std::size_t at, int col) {
  return (a.g[at] * a.scale[col] - a.save_mean[col]) * a.save_invstd[col];
}

// The six sums of one pass: dy, dy xhat, xhat, dy u, u, xhat u, with u = g - g[0][col].
struct GradientTerms {
  static constexpr int kSums = 6;
  Args a;
  __device__ void operator()(int row, int col, float (&out)[kSums]) const {
    const std::size_t at = std::size_t(row) * a.n + col;
    const float dy = a.dy[at], xhat = xhat_of(a, at, col), u = a.g[at] - a.g[col];
    out[0] = dy, out[1] = dy * xhat, out[2] = xhat, out[3] = dy * u, out[4] = u, out[5] = xhat * u;
  }
};

// Per column, from the six sums (backward.hpp's formulas, with sum dh = -k dgamma sum xhat / M
// and sum dh g = sum dh u + c sum dh); the coefficients in double, so that C, which absorbs the
// large terms B c and the mean, carries no cancellation of its own.
__global__ void finish_columns(Args a, const float* partials, int chunks, float* coefficients) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= a.n) return;
  float sum[GradientTerms::kSums];
  for (int s = 0; s < GradientTerms::kSums; ++s) sum[s] = chunk_total(partials, s, chunks, a.n, j);
  const float dbeta = sum[0], dgamma = sum[1], inv_m = 1.0f / float(a.m);
  const float k = a.gamma[j] * a.save_invstd[j], shift = a.g[j], s = a.scale[j];
  const float sum_dh = -k * dgamma * sum[2] * inv_m;
  const float sum_dh_u = k * (sum[3] - dbeta * sum[4] * inv_m - dgamma * sum[5] * inv_m);
  a.dbeta[j] = dbeta;
  a.dgamma[j] = dgamma;
  a.dbias[j] = s * sum_dh;
  a.dscale[j] = sum_dh_u + shift * sum_dh;
  // dg = s k (dy - dbeta / M - xhat dgamma / M), xhat = s invstd (g - c) + (s c - mean) invstd.
  const double sk = double(s) * k, invstd = a.save_invstd[j], per_m = double(dgamma) / a.m;
  const double xhat_at_shift = (double(s) * shift - a.save_mean[j]) * invstd;
  coefficients[j] = float(sk);
  coefficients[a.n + j] = float(-sk * double(s) * invstd * per_m);
  coefficients[2 * a.n + j] = float(-sk * (double(dbeta) / a.m + xhat_at_shift * per_m));
  coefficients[3 * a.n + j] = shift;
}

__global__ void write_dg(Args a, DgCoefficients k, float* dg) {
  const std::size_t total = std::size_t(a.m) * a.n;
  for (std::size_t e = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
       e += std::size_t(gridDim.x) * blockDim.x) {
    dg[e] = dg_value(k, int(e % std::size_t(a.n)), a.dy[e], a.g[e]);
  }
}

// The same with float4 (N % 4 == 0, 16-byte aligned matrices).
__global__ void write_dg_vec4(Args a, DgCoefficients k, float* dg) {
  const std::size_t total = std::size_t(a.m) * a.n / 4;
  const int n4 = a.n / 4;
  for (std::size_t e = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
       e += std::size_t(gridDim.x) * blockDim.x) {
    const int col = int(e % std::size_t(n4)) * 4;
    const float4 out = dg_value4(k, col, __ldg(reinterpret_cast<const float4*>(a.dy) + e),
                                 __ldg(reinterpret_cast<const float4*>(a.g) + e));
    reinterpret_cast<float4*>(dg)[e] = out;
  }
}

// A 32 x 32 tile of dg per CTA (32 x 8 threads): rows read and written coalesced, then the tile
// written again transposed from shared memory (+1 column keeps the transposed reads conflict-free).
constexpr int kTile = 32, kTileRowsPerPass = 8;

__global__ void write_dg_both_layouts(Args a, DgCoefficients k, float* dg, float* dg_t) {
  __shared__ float tile[kTile][kTile + 1];
  const int col0 = blockIdx.x * kTile, row0 = blockIdx.y * kTile;
  const int col = col0 + threadIdx.x;
  if (col < a.n) {
    for (int r = threadIdx.y; r < kTile; r += kTileRowsPerPass) {
      const int row = row0 + r;
      if (row >= a.m) break;
      const std::size_t at = std::size_t(row) * a.n + col;
      const float v = dg_value(k, col, a.dy[at], a.g[at]);
      dg[at] = v;
      tile[r][threadIdx.x] = v;
    }
  }
  __syncthreads();
  const int row = row0 + threadIdx.x;  // now along M, contiguous in dg^T
  if (row >= a.m) return;
  for (int c = threadIdx.y; c < kTile; c += kTileRowsPerPass)
    if (col0 + c < a.n) dg_t[std::size_t(col0 + c) * a.m + row] = tile[threadIdx.x][c];
}

// --- autograd's steps ---
struct BnReduceTerms {
  static constexpr int kSums = 2;
  Args a;
  __device__ void operator()(int row, int col, float (&out)[kSums]) const {
    const std::size_t at = std::size_t(row) * a.n + col;
    out[0] = a.dy[at], out[1] = a.dy[at] * xhat_of(a, at, col);
  }
};

__global__ void finish_bn_reduce(Args a, const float* partials, int chunks) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= a.n) return;
  a.dbeta[j] = chunk_total(partials, 0, chunks, a.n, j);
  a.dgamma[j] = chunk_total(partials, 1, chunks, a.n, j);
}

__global__ void bn_backward_elementwise(Args a, float* dh) {
  const std::size_t total = std::size_t(a.m) * a.n;
  const float inv_m = 1.0f / float(a.m);
  for (std::size_t e = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
       e += std::size_t(gridDim.x) * blockDim.x) {
    const int j = int(e % std::size_t(a.n));
    const float xhat = xhat_of(a, e, j);
    dh[e] = a.gamma[j] * a.save_invstd[j] * (a.dy[e] - a.dbeta[j] * inv_m - xhat * a.dgamma[j] * inv_m);
  }
}

__global__ void multiply(const float* a, const float* b, float* out, int m, int n) {
  const std::size_t total = std::size_t(m) * n;
  for (std::size_t e = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
       e += std::size_t(gridDim.x) * blockDim.x)
    out[e] = a[e] * b[e];
}

struct PlainTerms {
  static constexpr int kSums = 1;
  const float* mat;
  int n;
  __device__ void operator()(int row, int col, float (&out)[kSums]) const { out[0] = mat[std::size_t(row) * n + col]; }
};

__global__ void finish_sum(const float* partials, int chunks, float* out, int n) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < n) out[j] = chunk_total(partials, 0, chunks, n, j);
}

constexpr int kThreads = 256;

unsigned column_blocks(int n) { return unsigned((n + kThreads - 1) / kThreads); }

// Grid-stride elementwise launches: enough CTAs to fill the GPU several times over.
unsigned elementwise_blocks(std::size_t items) {
  const std::size_t wanted = (items + kThreads - 1) / kThreads;
  return unsigned(wanted < 65536 ? wanted : 65536);
}

std::size_t partial_floats(int sums, int m, int n) { return std::size_t(sums) * column_chunks(m) * std::size_t(n); }

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

}  // namespace

std::size_t column_gradients_workspace_bytes(int m, int n) {
  return (partial_floats(GradientTerms::kSums, m, n) + 4 * std::size_t(n)) * sizeof(float);
}

DgCoefficients launch_column_gradients(const Args& a, void* workspace, cudaStream_t s) {
  float* partials = static_cast<float*>(workspace);
  float* coefficients = partials + partial_floats(GradientTerms::kSums, a.m, a.n);
  dev::launch_column_partials(GradientTerms{a}, a.m, a.n, partials, s);
  NB_CHECK_LAUNCH();
  finish_columns<<<column_blocks(a.n), kThreads, 0, s>>>(a, partials, column_chunks(a.m), coefficients);
  NB_CHECK_LAUNCH();
  return DgCoefficients::at(coefficients, a.n);
}

void launch_write_dg(const Args& a, const DgCoefficients& k, float* dg, cudaStream_t s) {
  const std::size_t total = std::size_t(a.m) * a.n;
  if (a.n % 4 == 0 && aligned16(a.dy) && aligned16(a.g) && aligned16(dg) && aligned16(k.a) && aligned16(k.b) &&
      aligned16(k.c) && aligned16(k.shift))
    write_dg_vec4<<<elementwise_blocks(total / 4), kThreads, 0, s>>>(a, k, dg);
  else
    write_dg<<<elementwise_blocks(total), kThreads, 0, s>>>(a, k, dg);
  NB_CHECK_LAUNCH();
}

void launch_write_dg_both_layouts(const Args& a, const DgCoefficients& k, float* dg, float* dg_t, cudaStream_t s) {
  const dim3 grid(unsigned((a.n + kTile - 1) / kTile), unsigned((a.m + kTile - 1) / kTile));
  write_dg_both_layouts<<<grid, dim3(kTile, kTileRowsPerPass), 0, s>>>(a, k, dg, dg_t);
  NB_CHECK_LAUNCH();
}

std::size_t column_sum_workspace_bytes(int m, int n) { return partial_floats(BnReduceTerms::kSums, m, n) * sizeof(float); }

void launch_bn_backward_reduce(const Args& a, void* workspace, cudaStream_t s) {
  float* partials = static_cast<float*>(workspace);
  dev::launch_column_partials(BnReduceTerms{a}, a.m, a.n, partials, s);
  NB_CHECK_LAUNCH();
  finish_bn_reduce<<<column_blocks(a.n), kThreads, 0, s>>>(a, partials, column_chunks(a.m));
  NB_CHECK_LAUNCH();
}

void launch_bn_backward_elementwise(const Args& a, float* dh, cudaStream_t s) {
  bn_backward_elementwise<<<elementwise_blocks(std::size_t(a.m) * a.n), kThreads, 0, s>>>(a, dh);
  NB_CHECK_LAUNCH();
}

void launch_multiply(const float* a, const float* b, float* out, int m, int n, cudaStream_t s) {
  multiply<<<elementwise_blocks(std::size_t(m) * n), kThreads, 0, s>>>(a, b, out, m, n);
  NB_CHECK_LAUNCH();
}

void launch_column_sum(const float* mat, float* out, int m, int n, void* workspace, cudaStream_t s) {
  float* partials = static_cast<float*>(workspace);
  dev::launch_column_partials(PlainTerms{mat, n}, m, n, partials, s);
  NB_CHECK_LAUNCH();
  finish_sum<<<column_blocks(n), kThreads, 0, s>>>(partials, column_chunks(m), out, n);
  NB_CHECK_LAUNCH();
}

}  // namespace nb::gemm_scale_bn_bwd
