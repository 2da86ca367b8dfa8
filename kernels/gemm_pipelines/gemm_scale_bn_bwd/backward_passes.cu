// The backward's memory-bound passes (backward_passes.hpp): the one-read column reduction with
// its per-column finish, the dg writer, and autograd's one-kernel-per-step pieces. Each kernel is
// templated on the linear storage G (linear_storage.cuh) of g, dg and db.
#include <cstdint>

#include "harness/cuda_check.hpp"
#include "kernels/gemm_pipelines/gemm_scale_bn_bwd/backward_passes.hpp"
#include "kernels/gemm_pipelines/gemm_scale_bn_bwd/column_reduce.cuh"
#include "kernels/gemm_pipelines/gemm_scale_bn_bwd/dg_affine.cuh"
#include "kernels/gemm_pipelines/gemm_scale_bn_bwd/linear_storage.cuh"
#include "kernels/primitives/storage.cuh"

namespace nb::gemm_scale_bn_bwd {
namespace {

using dev::chunk_total;
using dev::column_chunks;
using dev::dg_value;
using dev::dg_value4;
using nb::dev::from_float;
using nb::dev::to_float;

template <class G>
__device__ inline float g_at(const Args& a, std::size_t at) {
  return to_float(LinearStorage<G>::g(a)[at]);
}

template <class G>
__device__ inline float xhat_of(const Args& a, std::size_t at, int col) {
  return (g_at<G>(a, at) * a.scale[col] - a.save_mean[col]) * a.save_invstd[col];
}

// The six sums of one pass: dy, dy xhat, xhat, dy u, u, xhat u, with u = g - g[0][col].
template <class G>
struct GradientTerms {
  static constexpr int kSums = 6;
  Args a;
  __device__ void operator()(int row, int col, float (&out)[kSums]) const {
    const std::size_t at = std::size_t(row) * a.n + col;
    const float dy = a.dy[at], xhat = xhat_of<G>(a, at, col), u = g_at<G>(a, at) - g_at<G>(a, col);
    out[0] = dy, out[1] = dy * xhat, out[2] = xhat, out[3] = dy * u, out[4] = u, out[5] = xhat * u;
  }
};

// Per column, from the six sums (backward.hpp's formulas, with sum dh = -k dgamma sum xhat / M
// and sum dh g = sum dh u + c sum dh); the coefficients in double, so that C, which absorbs the
// large terms B c and the mean, carries no cancellation of its own.
// A CTA of 32 columns x 8 chunk groups adds the chunks (cta_chunk_totals): one thread a column
// adding 128 chunks of six sums in turn took 40 us at M = 16384, N = 4096 on the H100.
template <class G>
__global__ void finish_columns(Args a, const float* partials, int chunks, float* coefficients) {
  float sum[GradientTerms<G>::kSums];
  if (!dev::cta_chunk_totals(partials, chunks, a.n, sum)) return;
  const int j = blockIdx.x * dev::kColumnsPerCta + threadIdx.x;
  const float dbeta = sum[0], dgamma = sum[1], inv_m = 1.0f / float(a.m);
  const float k = a.gamma[j] * a.save_invstd[j], shift = g_at<G>(a, j), s = a.scale[j];
  const float sum_dh = -k * dgamma * sum[2] * inv_m;
  const float sum_dh_u = k * (sum[3] - dbeta * sum[4] * inv_m - dgamma * sum[5] * inv_m);
  a.dbeta[j] = dbeta;
  a.dgamma[j] = dgamma;
  LinearStorage<G>::dbias(a)[j] = from_float<G>(s * sum_dh);
  a.dscale[j] = sum_dh_u + shift * sum_dh;
  // dg = s k (dy - dbeta / M - xhat dgamma / M), xhat = s invstd (g - c) + (s c - mean) invstd.
  const double sk = double(s) * k, invstd = a.save_invstd[j], per_m = double(dgamma) / a.m;
  const double xhat_at_shift = (double(s) * shift - a.save_mean[j]) * invstd;
  coefficients[j] = float(sk);
  coefficients[a.n + j] = float(-sk * double(s) * invstd * per_m);
  coefficients[2 * a.n + j] = float(-sk * (double(dbeta) / a.m + xhat_at_shift * per_m));
  coefficients[3 * a.n + j] = shift;
}

template <class G>
__global__ void write_dg(Args a, DgCoefficients k, G* dg) {
  const std::size_t total = std::size_t(a.m) * a.n;
  for (std::size_t e = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
       e += std::size_t(gridDim.x) * blockDim.x) {
    dg[e] = from_float<G>(dg_value(k, int(e % std::size_t(a.n)), a.dy[e], g_at<G>(a, e)));
  }
}

// The same four columns at a time (N % 4 == 0; dy and the coefficients 16-byte aligned, g and dg
// aligned to four of their elements).
template <class G>
__global__ void write_dg_vec4(Args a, DgCoefficients k, G* dg) {
  const std::size_t total = std::size_t(a.m) * a.n / 4;
  const int n4 = a.n / 4;
  const G* g = LinearStorage<G>::g(a);
  for (std::size_t e = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
       e += std::size_t(gridDim.x) * blockDim.x) {
    const int col = int(e % std::size_t(n4)) * 4;
    const nb::dev::FloatPack<4> dy = nb::dev::load_as_float<float, 4>(a.dy + 4 * e);
    const nb::dev::FloatPack<4> gv = nb::dev::load_as_float<G, 4>(g + 4 * e);
    const float4 out = dg_value4(k, col, make_float4(dy.v[0], dy.v[1], dy.v[2], dy.v[3]),
                                 make_float4(gv.v[0], gv.v[1], gv.v[2], gv.v[3]));
    nb::dev::store_from_float<G, 4>(dg + 4 * e, nb::dev::FloatPack<4>{{out.x, out.y, out.z, out.w}});
  }
}

// A 32 x 32 tile of dg per CTA (32 x 8 threads): rows read and written coalesced, then the tile
// written again transposed from shared memory (+1 column keeps the transposed reads conflict-free).
constexpr int kTile = 32, kTileRowsPerPass = 8;

template <class G>
__global__ void write_dg_both_layouts(Args a, DgCoefficients k, G* dg, G* dg_t) {
  __shared__ float tile[kTile][kTile + 1];
  const int col0 = blockIdx.x * kTile, row0 = blockIdx.y * kTile;
  const int col = col0 + threadIdx.x;
  if (col < a.n) {
    for (int r = threadIdx.y; r < kTile; r += kTileRowsPerPass) {
      const int row = row0 + r;
      if (row >= a.m) break;
      const std::size_t at = std::size_t(row) * a.n + col;
      const float v = dg_value(k, col, a.dy[at], g_at<G>(a, at));
      dg[at] = from_float<G>(v);
      tile[r][threadIdx.x] = v;
    }
  }
  __syncthreads();
  const int row = row0 + threadIdx.x;  // now along M, contiguous in dg^T
  if (row >= a.m) return;
  for (int c = threadIdx.y; c < kTile; c += kTileRowsPerPass)
    if (col0 + c < a.n) dg_t[std::size_t(col0 + c) * a.m + row] = from_float<G>(tile[threadIdx.x][c]);
}

// --- autograd's steps ---
template <class G>
struct BnReduceTerms {
  static constexpr int kSums = 2;
  Args a;
  __device__ void operator()(int row, int col, float (&out)[kSums]) const {
    const std::size_t at = std::size_t(row) * a.n + col;
    out[0] = a.dy[at], out[1] = a.dy[at] * xhat_of<G>(a, at, col);
  }
};

__global__ void finish_bn_reduce(Args a, const float* partials, int chunks) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= a.n) return;
  a.dbeta[j] = chunk_total(partials, 0, chunks, a.n, j);
  a.dgamma[j] = chunk_total(partials, 1, chunks, a.n, j);
}

template <class G>
__global__ void bn_backward_elementwise(Args a, float* dh) {
  const std::size_t total = std::size_t(a.m) * a.n;
  const float inv_m = 1.0f / float(a.m);
  for (std::size_t e = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
       e += std::size_t(gridDim.x) * blockDim.x) {
    const int j = int(e % std::size_t(a.n));
    const float xhat = xhat_of<G>(a, e, j);
    dh[e] = a.gamma[j] * a.save_invstd[j] * (a.dy[e] - a.dbeta[j] * inv_m - xhat * a.dgamma[j] * inv_m);
  }
}

template <class G>
__global__ void dg_of_dh(Args a, const float* dh, G* dg) {
  const std::size_t total = std::size_t(a.m) * a.n;
  for (std::size_t e = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
       e += std::size_t(gridDim.x) * blockDim.x)
    dg[e] = from_float<G>(dh[e] * a.scale[e % std::size_t(a.n)]);
}

template <class G>
__global__ void times_g(Args a, float* dh) {
  const std::size_t total = std::size_t(a.m) * a.n;
  for (std::size_t e = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
       e += std::size_t(gridDim.x) * blockDim.x)
    dh[e] *= g_at<G>(a, e);
}

template <class T>
struct PlainTerms {
  static constexpr int kSums = 1;
  const T* mat;
  int n;
  __device__ void operator()(int row, int col, float (&out)[kSums]) const {
    out[0] = to_float(mat[std::size_t(row) * n + col]);
  }
};

template <class T>
__global__ void finish_sum(const float* partials, int chunks, T* out, int n) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < n) out[j] = from_float<T>(chunk_total(partials, 0, chunks, n, j));
}

constexpr int kThreads = 256;

unsigned column_blocks(int n) { return unsigned((n + kThreads - 1) / kThreads); }

// Grid-stride elementwise launches: enough CTAs to fill the GPU several times over.
unsigned elementwise_blocks(std::size_t items) {
  const std::size_t wanted = (items + kThreads - 1) / kThreads;
  return unsigned(wanted < 65536 ? wanted : 65536);
}

std::size_t partial_floats(int sums, int m, int n) { return std::size_t(sums) * column_chunks(m) * std::size_t(n); }

bool aligned(const void* p, std::size_t bytes) { return reinterpret_cast<std::uintptr_t>(p) % bytes == 0; }

// out[j] = the sum of column j of mat (m, n), in fp32, stored as T.
template <class T>
void column_sum(const T* mat, T* out, int m, int n, void* workspace, cudaStream_t s) {
  float* partials = static_cast<float*>(workspace);
  dev::launch_column_partials(PlainTerms<T>{mat, n}, m, n, partials, s);
  NB_CHECK_LAUNCH();
  finish_sum<<<column_blocks(n), kThreads, 0, s>>>(partials, column_chunks(m), out, n);
  NB_CHECK_LAUNCH();
}

}  // namespace

std::size_t column_gradients_workspace_bytes(int m, int n) {
  return (partial_floats(GradientTerms<float>::kSums, m, n) + 4 * std::size_t(n)) * sizeof(float);
}

DgCoefficients launch_column_gradients(const Args& a, void* workspace, cudaStream_t s) {
  float* partials = static_cast<float*>(workspace);
  float* coefficients = partials + partial_floats(GradientTerms<float>::kSums, a.m, a.n);
  with_linear_storage(a, [&](auto storage) {
    using G = decltype(storage);
    dev::launch_column_partials(GradientTerms<G>{a}, a.m, a.n, partials, s);
    NB_CHECK_LAUNCH();
    finish_columns<G><<<dev::chunk_totals_grid(a.n), dev::chunk_totals_block(), 0, s>>>(a, partials,
                                                                                       column_chunks(a.m), coefficients);
    NB_CHECK_LAUNCH();
  });
  return DgCoefficients::at(coefficients, a.n);
}

void launch_write_dg(const Args& a, const DgCoefficients& k, void* dg, cudaStream_t s) {
  const std::size_t total = std::size_t(a.m) * a.n;
  with_linear_storage(a, [&](auto storage) {
    using G = decltype(storage);
    G* out = static_cast<G*>(dg);
    const std::size_t pack = 4 * sizeof(G);
    if (a.n % 4 == 0 && aligned(a.dy, 16) && aligned(LinearStorage<G>::g(a), pack) && aligned(out, pack) &&
        aligned(k.a, 16) && aligned(k.b, 16) && aligned(k.c, 16) && aligned(k.shift, 16))
      write_dg_vec4<G><<<elementwise_blocks(total / 4), kThreads, 0, s>>>(a, k, out);
    else
      write_dg<G><<<elementwise_blocks(total), kThreads, 0, s>>>(a, k, out);
    NB_CHECK_LAUNCH();
  });
}

void launch_write_dg_both_layouts(const Args& a, const DgCoefficients& k, void* dg, void* dg_t, cudaStream_t s) {
  const dim3 grid(unsigned((a.n + kTile - 1) / kTile), unsigned((a.m + kTile - 1) / kTile));
  with_linear_storage(a, [&](auto storage) {
    using G = decltype(storage);
    write_dg_both_layouts<G>
        <<<grid, dim3(kTile, kTileRowsPerPass), 0, s>>>(a, k, static_cast<G*>(dg), static_cast<G*>(dg_t));
    NB_CHECK_LAUNCH();
  });
}

std::size_t column_sum_workspace_bytes(int m, int n) {
  return partial_floats(BnReduceTerms<float>::kSums, m, n) * sizeof(float);
}

void launch_bn_backward_reduce(const Args& a, void* workspace, cudaStream_t s) {
  float* partials = static_cast<float*>(workspace);
  with_linear_storage(a, [&](auto storage) {
    using G = decltype(storage);
    dev::launch_column_partials(BnReduceTerms<G>{a}, a.m, a.n, partials, s);
    NB_CHECK_LAUNCH();
  });
  finish_bn_reduce<<<column_blocks(a.n), kThreads, 0, s>>>(a, partials, column_chunks(a.m));
  NB_CHECK_LAUNCH();
}

void launch_bn_backward_elementwise(const Args& a, float* dh, cudaStream_t s) {
  with_linear_storage(a, [&](auto storage) {
    using G = decltype(storage);
    bn_backward_elementwise<G><<<elementwise_blocks(std::size_t(a.m) * a.n), kThreads, 0, s>>>(a, dh);
    NB_CHECK_LAUNCH();
  });
}

void launch_dg_of_dh(const Args& a, const float* dh, void* dg, cudaStream_t s) {
  with_linear_storage(a, [&](auto storage) {
    using G = decltype(storage);
    dg_of_dh<G><<<elementwise_blocks(std::size_t(a.m) * a.n), kThreads, 0, s>>>(a, dh, static_cast<G*>(dg));
    NB_CHECK_LAUNCH();
  });
}

void launch_times_g(const Args& a, float* dh, cudaStream_t s) {
  with_linear_storage(a, [&](auto storage) {
    using G = decltype(storage);
    times_g<G><<<elementwise_blocks(std::size_t(a.m) * a.n), kThreads, 0, s>>>(a, dh);
    NB_CHECK_LAUNCH();
  });
}

void launch_dscale_sum(const Args& a, const float* dh_times_g, void* workspace, cudaStream_t s) {
  column_sum(dh_times_g, a.dscale, a.m, a.n, workspace, s);
}

void launch_dbias_sum(const Args& a, const void* dg, void* workspace, cudaStream_t s) {
  with_linear_storage(a, [&](auto storage) {
    using G = decltype(storage);
    column_sum(static_cast<const G*>(dg), LinearStorage<G>::dbias(a), a.m, a.n, workspace, s);
  });
}

}  // namespace nb::gemm_scale_bn_bwd
