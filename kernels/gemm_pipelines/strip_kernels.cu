// The fused passes after a cuBLASLt GEMM. BatchNorm: a CTA owns a strip of 32 columns over all
// M rows, so its statistics need no other CTA, and the strip stays in shared memory between the
// statistics and the normalize (g is read once); past 1024 rows, Welford partials over row chunks
// spread the reads over many CTAs instead. GroupNorm + min: a CTA per row (every group lies inside
// its row) keeps only the row minimum; the broadcast write is a coalesced kernel of its own.
#include <algorithm>
#include <cstdint>

#include "harness/cuda_check.hpp"
#include "kernels/primitives/reduce.cuh"
#include "kernels/primitives/storage.cuh"
#include "kernels/gemm_pipelines/group_moments.cuh"
#include "kernels/gemm_pipelines/post_gemm.hpp"

namespace nb::linear {
namespace {

using nb::dev::Welford;
constexpr int kStripThreads = 256, kStripColumns = 32;
constexpr int kMaxStripRowsOnChip = 1024;  // 1024 x 32 floats = 128 KB of shared memory
constexpr int kRowUnroll = 4;              // rows loaded before any is used (loads in flight)

template <int VEC> struct Vec;
template <> struct Vec<1> { using type = float; };
template <> struct Vec<4> { using type = float4; };

// VEC consecutive elements of g (fp32, or bf16) widened, by a plain load: g may be y, which the
// same kernel writes after the statistics (no read-only path).
template <class In, int VEC>
__device__ __forceinline__ typename Vec<VEC>::type load_widened(const In* p) {
  const nb::dev::FloatPack<VEC> f =
      nb::dev::widen<In, VEC>(*reinterpret_cast<const nb::dev::PackWord<In, VEC>*>(p));
  typename Vec<VEC>::type v;
  float* out = reinterpret_cast<float*>(&v);
#pragma unroll
  for (int e = 0; e < VEC; ++e) out[e] = f.v[e];
  return v;
}

// VEC consecutive columns per thread: 32 / VEC threads cover a strip row, the CTA's threads form
// 256 * VEC / 32 row groups that stride the rows, then merge their Welford states per column.
template <int VEC, class In>
__global__ void __launch_bounds__(kStripThreads) bn_column_strip_kernel(const In* g, float* y, const float* scale,
                                                                        dev::BnColumnArgs bn, int m, int n,
                                                                        const float* post_scale, float* affine_out) {
  using V = typename Vec<VEC>::type;
  constexpr int kThreadsPerRow = kStripColumns / VEC, kRowGroups = kStripThreads / kThreadsPerRow;
  extern __shared__ float strip[];  // (m, 32)
  __shared__ Welford state[kRowGroups][kStripColumns];
  __shared__ dev::ColumnAffine affine[kStripColumns];
  const int quad = threadIdx.x % kThreadsPerRow, group = threadIdx.x / kThreadsPerRow;
  const int c0 = blockIdx.x * kStripColumns + quad * VEC;  // this thread's first column
  const int valid = min(VEC, n - c0);                       // columns of this thread inside N
  float s[VEC];
  for (int e = 0; e < VEC; ++e) s[e] = e < valid && scale ? scale[c0 + e] : 1.0f;
  Welford w[VEC];
  if (valid > 0)
    for (int r0 = group; r0 < m; r0 += kRowGroups * kRowUnroll) {
      V v[kRowUnroll];
#pragma unroll
      for (int u = 0; u < kRowUnroll; ++u) {
        const int r = r0 + u * kRowGroups;
        if (r < m) v[u] = load_widened<In, VEC>(g + (long long)r * n + c0);
      }
#pragma unroll
      for (int u = 0; u < kRowUnroll; ++u) {
        const int r = r0 + u * kRowGroups;
        if (r >= m) break;
        float* h = reinterpret_cast<float*>(&v[u]);
        for (int e = 0; e < VEC; ++e) {
          h[e] *= s[e];
          if (e < valid) w[e].add(h[e]);
        }
        *reinterpret_cast<V*>(strip + r * kStripColumns + quad * VEC) = v[u];
      }
    }
  for (int e = 0; e < VEC; ++e) state[group][quad * VEC + e] = w[e];
  __syncthreads();
  if (threadIdx.x < kStripColumns) {
    const int c = blockIdx.x * kStripColumns + threadIdx.x;
    Welford total = state[0][threadIdx.x];
    for (int g = 1; g < kRowGroups; ++g) total.merge(state[g][threadIdx.x]);
    if (c < n) {
      affine[threadIdx.x] = dev::commit_column(bn, c, total);
      if (affine_out) {
        const float post = post_scale ? *post_scale : 1.0f;
        affine_out[c] = affine[threadIdx.x].scale * post;
        affine_out[n + c] = affine[threadIdx.x].shift * post;
      }
    }
  }
  __syncthreads();
  if (affine_out || valid <= 0) return;
  for (int r = group; r < m; r += kRowGroups) {
    V v = *reinterpret_cast<const V*>(strip + r * kStripColumns + quad * VEC);
    float* h = reinterpret_cast<float*>(&v);
    for (int e = 0; e < VEC; ++e) h[e] = fmaf(h[e], affine[quad * VEC + e].scale, affine[quad * VEC + e].shift);
    if (valid == VEC)
      *reinterpret_cast<V*>(y + (long long)r * n + c0) = v;
    else
      for (int e = 0; e < valid; ++e) y[(long long)r * n + c0 + e] = h[e];
  }
}

template <int VEC, class In>
void launch_strips(const In* g, float* y, const float* scale, const dev::BnColumnArgs& bn, int m, int n,
                   const float* post_scale, float* affine_out, cudaStream_t s) {
  static const bool raised = [] {
    NB_CUDA_CHECK(cudaFuncSetAttribute(bn_column_strip_kernel<VEC, In>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       int(kMaxStripRowsOnChip * kStripColumns * sizeof(float))));
    return true;
  }();
  (void)raised;
  const std::size_t smem = std::size_t(m) * kStripColumns * sizeof(float);
  bn_column_strip_kernel<VEC, In><<<(n + kStripColumns - 1) / kStripColumns, kStripThreads, smem, s>>>(
      g, y, scale, bn, m, n, post_scale, affine_out);
  NB_CHECK_LAUNCH();
}

constexpr int kRowThreads = 256;  // a CTA per row, its warps interleaved over the row's groups

// Normalizes this warp's share of a row's groups (warp w of W takes every W-th piece) and returns
// the minimum over them (NaN-propagating). Groups of SIZE channels that tile a warp (SIZE a power
// of two up to 32, known at compile time) are reduced together with segmented shuffles, UNROLL
// chunks of 32 channels loaded at once; other sizes (SIZE = 0) go group by group.
template <int UNROLL, int SIZE, class In>
__device__ float groupnorm_row_min(const In* g, const float* gamma, const float* beta, int n, int size, float eps,
                                   int w, int warps) {
  const int lane = threadIdx.x & 31;
  const nb::dev::MinNanOp min_of;
  float mn = min_of.identity();
  if constexpr (SIZE > 0) {
    for (int base = w * 32 * UNROLL; base < n; base += warps * 32 * UNROLL) {
      float v[UNROLL];
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) {
        const int c = base + u * 32 + lane;
        v[u] = c < n ? nb::dev::to_float(g[c]) : 0.0f;  // n is a multiple of SIZE: a segment is wholly in or out
      }
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) {
        const int c = base + u * 32 + lane;
        float sum = v[u];
#pragma unroll
        for (int o = SIZE >> 1; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);
        const float mean = sum * (1.0f / SIZE), d = v[u] - mean;
        float m2 = d * d;
#pragma unroll
        for (int o = SIZE >> 1; o > 0; o >>= 1) m2 += __shfl_xor_sync(0xffffffffu, m2, o);
        if (c < n) mn = min_of(mn, fmaf(d * rsqrtf(m2 * (1.0f / SIZE) + eps), gamma[c], beta[c]));
      }
    }
  } else {
    for (int c0 = w * size; c0 < n; c0 += warps * size) {
      const float2 moments = dev::warp_group_moments(g + c0, size, eps);
      for (int i = lane; i < size; i += 32)
        mn = min_of(mn, fmaf((nb::dev::to_float(g[c0 + i]) - moments.x) * moments.y, gamma[c0 + i], beta[c0 + i]));
    }
  }
  return nb::dev::warp_reduce(mn, min_of);
}

// A CTA per row: GroupNorm and the row minimum, into row_min[m].
template <int SIZE, class In>
__global__ void __launch_bounds__(kRowThreads) groupnorm_min_rows_kernel(const In* g, const float* gamma,
                                                                         const float* beta, float* row_min, int n,
                                                                         int size, float eps) {
  __shared__ float scratch[32];
  const In* row = g + (long long)blockIdx.x * n;
  float mn = groupnorm_row_min<4, SIZE>(row, gamma, beta, n, size, eps, threadIdx.x >> 5, kRowThreads / 32);
  mn = nb::dev::block_reduce(mn, nb::dev::MinNanOp{}, scratch);
  if (threadIdx.x == 0) row_min[blockIdx.x] = mn;
}

template <int SIZE, class In>
void launch_groupnorm_min_rows_of(const In* g, const float* gamma, const float* beta, float* row_min, int m, int n,
                                  int size, float eps, cudaStream_t s) {
  groupnorm_min_rows_kernel<SIZE, In><<<m, kRowThreads, 0, s>>>(g, gamma, beta, row_min, n, size, eps);
  NB_CHECK_LAUNCH();
}

}  // namespace

std::size_t bn_columns_workspace_bytes(int m, int n) {
  if (m <= kMaxStripRowsOnChip) return 0;
  return std::size_t(column_partial_chunks(m)) * std::size_t(n) * sizeof(Welford) +
         2 * std::size_t(n) * sizeof(float);
}

template <class In>
void launch_bn_columns(const In* g, float* y, const float* scale, const dev::BnColumnArgs& bn, int m, int n,
                       cudaStream_t s, void* workspace, const float* post_scale, float* affine_out) {
  if (m <= kMaxStripRowsOnChip) {
    const bool vector = n % 4 == 0 && reinterpret_cast<std::uintptr_t>(y) % 16 == 0 &&
                        reinterpret_cast<std::uintptr_t>(g) % (4 * sizeof(In)) == 0;
    vector ? launch_strips<4>(g, y, scale, bn, m, n, post_scale, affine_out, s)
           : launch_strips<1>(g, y, scale, bn, m, n, post_scale, affine_out, s);
    return;
  }
  auto* partials = static_cast<Welford*>(workspace);
  const int chunks = column_partial_chunks(m);
  float* affine = affine_out ? affine_out : reinterpret_cast<float*>(partials + std::size_t(chunks) * std::size_t(n));
  launch_column_partials(g, partials, m, n, s);
  launch_commit_columns(partials, chunks, bn, scale, post_scale, affine, n, s);
  if (!affine_out) launch_apply_columns(g, y, affine, m, n, s);
}

template <class In>
void launch_groupnorm_min_rows(const In* g, const float* gamma, const float* beta, const float* add_bias,
                               float* out, float* row_min, int m, int n, int groups, float eps, cudaStream_t s) {
  const int size = n / groups;
  switch (size) {
    case 1: launch_groupnorm_min_rows_of<1, In>(g, gamma, beta, row_min, m, n, size, eps, s); break;
    case 2: launch_groupnorm_min_rows_of<2, In>(g, gamma, beta, row_min, m, n, size, eps, s); break;
    case 4: launch_groupnorm_min_rows_of<4, In>(g, gamma, beta, row_min, m, n, size, eps, s); break;
    case 8: launch_groupnorm_min_rows_of<8, In>(g, gamma, beta, row_min, m, n, size, eps, s); break;
    case 16: launch_groupnorm_min_rows_of<16, In>(g, gamma, beta, row_min, m, n, size, eps, s); break;
    case 32: launch_groupnorm_min_rows_of<32, In>(g, gamma, beta, row_min, m, n, size, eps, s); break;
    default: launch_groupnorm_min_rows_of<0, In>(g, gamma, beta, row_min, m, n, size, eps, s);
  }
  launch_min_broadcast(row_min, 1, add_bias, out, m, n, s);
}

#define NB_INSTANTIATE(In)                                                                                         \
  template void launch_bn_columns<In>(const In*, float*, const float*, const dev::BnColumnArgs&, int, int, cudaStream_t, \
                                      void*, const float*, float*);                                                     \
  template void launch_groupnorm_min_rows<In>(const In*, const float*, const float*, const float*, float*, float*, int, \
                                              int, int, float, cudaStream_t);
NB_INSTANTIATE(float)
NB_INSTANTIATE(__nv_bfloat16)
#undef NB_INSTANTIATE

}  // namespace nb::linear
