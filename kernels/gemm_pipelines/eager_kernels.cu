// The post-GEMM steps one kernel each, as PyTorch eager runs them: bias copy, scale, BatchNorm
// statistics (Welford partials over row chunks, then a per-column commit), the elementwise
// normalize, row softmax (rows up to 8192 held in registers), GroupNorm, row min and the
// broadcast bias add.
#include <algorithm>
#include <cstdint>

#include "harness/cuda_check.hpp"
#include "harness/device/sm_count.hpp"
#include "kernels/primitives/merge.cuh"
#include "kernels/primitives/reduce.cuh"
#include "kernels/primitives/storage.cuh"
#include "kernels/gemm_pipelines/group_moments.cuh"
#include "kernels/gemm_pipelines/post_gemm.hpp"

namespace nb::linear {
namespace {

using nb::dev::Welford;
constexpr int kThreads = 256;
constexpr int kPartialRows = 256;  // rows per Welford partial: M / 256 CTAs per 32-column strip

unsigned blocks_for(long long count) { return unsigned((count + kThreads - 1) / kThreads); }

__global__ void widen_kernel(const __nv_bfloat16* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __bfloat162float(in[i]);
}

__global__ void bias_rows_kernel(float* g, const float* bias, int m, int n) {
  const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < (long long)m * n) g[i] = bias[i % n];
}

__global__ void scale_kernel(const float* in, float* out, const float* scale, int m, int n, bool per_column) {
  const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < (long long)m * n) out[i] = in[i] * scale[per_column ? i % n : 0];
}

// A CTA takes 32 * COLUMNS columns (COLUMNS consecutive ones per lane: a warp reads 128 bytes of
// a row when COLUMNS * sizeof(In) is 4) and a chunk of rows (warps stride them, four rows loaded
// before any is used), then merges its warps' Welford states in shared memory.
template <class In, int COLUMNS>
__global__ void column_partials_kernel(const In* h, Welford* partials, int m, int n, int rows_per_chunk) {
  constexpr int kWarps = kThreads / 32, kUnroll = 4;
  __shared__ Welford warp_state[kWarps][32 * COLUMNS];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, c = (blockIdx.x * 32 + lane) * COLUMNS;
  const int r0 = blockIdx.y * rows_per_chunk, r1 = min(m, r0 + rows_per_chunk);
  Welford w[COLUMNS];
  if (c < n)
    for (int r = r0 + warp; r < r1; r += kWarps * kUnroll) {
      nb::dev::FloatPack<COLUMNS> v[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u)
        if (r + u * kWarps < r1)
          v[u] = nb::dev::widen<In, COLUMNS>(
              *reinterpret_cast<const nb::dev::PackWord<In, COLUMNS>*>(h + (long long)(r + u * kWarps) * n + c));
#pragma unroll
      for (int u = 0; u < kUnroll; ++u)
        if (r + u * kWarps < r1)
#pragma unroll
          for (int e = 0; e < COLUMNS; ++e) w[e].add(v[u].v[e]);
    }
#pragma unroll
  for (int e = 0; e < COLUMNS; ++e) warp_state[warp][lane * COLUMNS + e] = w[e];
  __syncthreads();
  if (warp == 0 && c < n)
#pragma unroll
    for (int e = 0; e < COLUMNS; ++e) {
      for (int k = 1; k < kThreads / 32; ++k) w[e].merge(warp_state[k][lane * COLUMNS + e]);
      partials[(long long)blockIdx.y * n + c + e] = w[e];
    }
}

// A warp per column: its lanes merge every 32nd chunk's partial, then the warp merges them.
__global__ void commit_columns_kernel(const Welford* partials, int chunks, dev::BnColumnArgs bn,
                                      const float* column_scale, const float* post_scale, float* affine, int n) {
  const int c = int((blockIdx.x * (long long)blockDim.x + threadIdx.x) >> 5), lane = threadIdx.x & 31;
  if (c >= n) return;
  Welford w;
  for (int k = lane; k < chunks; k += 32) w.merge(partials[(long long)k * n + c]);
  w = nb::dev::warp_merge(w);
  if (lane != 0) return;
  const float s = column_scale ? column_scale[c] : 1.0f;  // statistics of g * s from those of g
  w.mean *= s;
  w.m2 *= s * s;
  const dev::ColumnAffine f = dev::commit_column(bn, c, w);
  const float post = post_scale ? *post_scale : 1.0f;
  affine[c] = f.scale * s * post;
  affine[n + c] = f.shift * post;
}

__global__ void commit_column_sums_kernel(const float* sum, const float* sumsq, int m, dev::BnColumnArgs bn,
                                          const float* post_scale, float* affine, int n) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= n) return;
  Welford w;
  w.count = float(m);
  w.mean = sum[c] / float(m);
  const float m2 = sumsq[c] - w.mean * sum[c];
  w.m2 = m2 < 0.0f ? 0.0f : m2;  // a rounding below zero is clamped; a NaN (Inf - Inf) stays
  const dev::ColumnAffine f = dev::commit_column(bn, c, w);
  const float post = post_scale ? *post_scale : 1.0f;
  affine[c] = f.scale * post;
  affine[n + c] = f.shift * post;
}

// VEC consecutive elements per thread (n a multiple of VEC, so a pack stays in its row): a 16-byte
// load of in (8 bf16 or 4 floats) where VEC allows. A plain load: in may be out.
template <class In, int VEC>
__global__ void apply_columns_kernel(const In* in, float* out, const float* affine, int m, int n) {
  const long long i = (blockIdx.x * (long long)blockDim.x + threadIdx.x) * VEC;
  if (i >= (long long)m * n) return;
  const int c = int(i % n);
  const nb::dev::FloatPack<VEC> v =
      nb::dev::widen<In, VEC>(*reinterpret_cast<const nb::dev::PackWord<In, VEC>*>(in + i));
  nb::dev::FloatPack<VEC> y;
#pragma unroll
  for (int e = 0; e < VEC; ++e) y.v[e] = fmaf(v.v[e], affine[c + e], affine[n + c + e]);
  if constexpr (VEC % 4 == 0) {
#pragma unroll
    for (int e = 0; e < VEC; e += 4)
      *reinterpret_cast<float4*>(out + i + e) = make_float4(y.v[e], y.v[e + 1], y.v[e + 2], y.v[e + 3]);
  } else {
#pragma unroll
    for (int e = 0; e < VEC; ++e) out[i + e] = y.v[e];
  }
}

// One CTA per row of at most kThreads * PER_THREAD values, held in registers: one read of the
// row, max and sum of exponentials from registers, one write.
template <int PER_THREAD, class In>
__global__ void __launch_bounds__(kThreads) softmax_rows_in_registers_kernel(const In* in, float* out,
                                                                            const float* affine, int n) {
  __shared__ float scratch[32];
  const In* row = in + (long long)blockIdx.x * n;
  float v[PER_THREAD];
#pragma unroll
  for (int i = 0; i < PER_THREAD; ++i) {
    const int c = threadIdx.x + i * kThreads;
    const float h = c < n ? nb::dev::to_float(row[c]) : 0.0f;
    v[i] = c < n ? (affine ? fmaf(h, affine[c], affine[n + c]) : h) : -INFINITY;
  }
  float mx = -INFINITY;
#pragma unroll
  for (int i = 0; i < PER_THREAD; ++i) mx = fmaxf(mx, v[i]);
  mx = nb::dev::block_reduce(mx, nb::dev::MaxOp{}, scratch);
  float sum = 0.0f;
#pragma unroll
  for (int i = 0; i < PER_THREAD; ++i) {
    v[i] = threadIdx.x + i * kThreads < n ? expf(v[i] - mx) : 0.0f;
    sum += v[i];
  }
  const float inv = 1.0f / nb::dev::block_sum(sum, scratch);
  float* dst = out + (long long)blockIdx.x * n;
#pragma unroll
  for (int i = 0; i < PER_THREAD; ++i)
    if (threadIdx.x + i * kThreads < n) dst[threadIdx.x + i * kThreads] = v[i] * inv;
}

// One CTA per row of any length: max, sum of exponentials, write (the row stays in L1/L2
// between passes).
template <class In>
__global__ void softmax_rows_kernel(const In* in, float* out, const float* affine, int n) {
  __shared__ float scratch[32];
  const In* row = in + (long long)blockIdx.x * n;
  float* dst = out + (long long)blockIdx.x * n;
  auto value = [&](int c) {
    const float h = nb::dev::to_float(row[c]);
    return affine ? fmaf(h, affine[c], affine[n + c]) : h;
  };
  float mx = -INFINITY;
  for (int c = threadIdx.x; c < n; c += blockDim.x) mx = fmaxf(mx, value(c));
  mx = nb::dev::block_reduce(mx, nb::dev::MaxOp{}, scratch);
  float sum = 0.0f;
  for (int c = threadIdx.x; c < n; c += blockDim.x) sum += expf(value(c) - mx);
  const float inv = 1.0f / nb::dev::block_sum(sum, scratch);
  for (int c = threadIdx.x; c < n; c += blockDim.x) dst[c] = expf(value(c) - mx) * inv;
}

// One warp per (row, group): two passes over the group's channels.
__global__ void groupnorm_rows_kernel(const float* g, float* z, const float* gamma, const float* beta, int m, int n,
                                      int groups, float eps) {
  const long long task = (blockIdx.x * (long long)blockDim.x + threadIdx.x) >> 5;
  const int lane = threadIdx.x & 31;
  if (task >= (long long)m * groups) return;
  const int size = n / groups;
  const long long base = (task / groups) * n + (task % groups) * size;
  const int c0 = int(task % groups) * size;
  const float2 moments = dev::warp_group_moments(g + base, size, eps);
  for (int i = lane; i < size; i += 32)
    z[base + i] = fmaf((g[base + i] - moments.x) * moments.y, gamma[c0 + i], beta[c0 + i]);
}

__global__ void min_rows_kernel(const float* z, float* mn, int m, int n) {
  const long long row = (blockIdx.x * (long long)blockDim.x + threadIdx.x) >> 5;
  const int lane = threadIdx.x & 31;
  if (row >= m) return;
  const nb::dev::MinNanOp min_of;
  float v = min_of.identity();
  for (int c = lane; c < n; c += 32) v = min_of(v, z[row * n + c]);
  v = nb::dev::warp_reduce(v, min_of);
  if (lane == 0) mn[row] = v;
}

// Rows fastest: a warp writes 32 consecutive rows of one channel (128 bytes).
__global__ void min_broadcast_kernel(const float* partial_min, int tiles, const float* add_bias, float* out, int m,
                                     int n) {
  const int r = blockIdx.x * 32 + (threadIdx.x & 31);
  if (r >= m) return;
  const nb::dev::MinNanOp min_of;
  float mn = partial_min[r];
  for (int t = 1; t < tiles; ++t) mn = min_of(mn, partial_min[(long long)t * m + r]);
  for (int c = blockIdx.y * (blockDim.x >> 5) + (threadIdx.x >> 5); c < n; c += gridDim.y * (blockDim.x >> 5))
    out[(long long)c * m + r] = mn + add_bias[c];
}

// The same with four rows per lane (M % 4 == 0): a warp writes 512 contiguous bytes per channel.
__global__ void min_broadcast4_kernel(const float* partial_min, int tiles, const float* add_bias, float* out, int m,
                                      int n) {
  const int r = (blockIdx.x * 32 + (threadIdx.x & 31)) * 4;
  if (r >= m) return;
  const nb::dev::MinNanOp min_of;
  float4 mn = *reinterpret_cast<const float4*>(partial_min + r);
  for (int t = 1; t < tiles; ++t) {
    const float4 o = *reinterpret_cast<const float4*>(partial_min + (long long)t * m + r);
    mn = make_float4(min_of(mn.x, o.x), min_of(mn.y, o.y), min_of(mn.z, o.z), min_of(mn.w, o.w));
  }
  for (int c = blockIdx.y * (blockDim.x >> 5) + (threadIdx.x >> 5); c < n; c += gridDim.y * (blockDim.x >> 5)) {
    const float b = add_bias[c];
    *reinterpret_cast<float4*>(out + (long long)c * m + r) = make_float4(mn.x + b, mn.y + b, mn.z + b, mn.w + b);
  }
}

}  // namespace

void launch_bias_rows(float* g, const float* bias, int m, int n, cudaStream_t s) {
  bias_rows_kernel<<<blocks_for((long long)m * n), kThreads, 0, s>>>(g, bias, m, n);
  NB_CHECK_LAUNCH();
}

void launch_widen(const __nv_bfloat16* in, float* out, int n, cudaStream_t s) {
  if (n <= 0) return;
  widen_kernel<<<blocks_for(n), kThreads, 0, s>>>(in, out, n);
  NB_CHECK_LAUNCH();
}

void launch_scale(const float* in, float* out, const float* scale, int m, int n, bool per_column, cudaStream_t s) {
  scale_kernel<<<blocks_for((long long)m * n), kThreads, 0, s>>>(in, out, scale, m, n, per_column);
  NB_CHECK_LAUNCH();
}

int column_partial_chunks(int m) { return (m + kPartialRows - 1) / kPartialRows; }

template <class In>
void launch_column_partials(const In* h, dev::Welford* partials, int m, int n, cudaStream_t s) {
  // Two bf16 columns a lane where n and h allow: 4-byte reads, 128 bytes a warp.
  constexpr int kPair = sizeof(In) == 2 ? 2 : 1;
  if (kPair == 2 && n % 2 == 0 && reinterpret_cast<std::uintptr_t>(h) % 4 == 0) {
    const dim3 grid((n + 32 * kPair - 1) / (32 * kPair), column_partial_chunks(m));
    column_partials_kernel<In, kPair><<<grid, kThreads, 0, s>>>(h, partials, m, n, kPartialRows);
  } else {
    const dim3 grid((n + 31) / 32, column_partial_chunks(m));
    column_partials_kernel<In, 1><<<grid, kThreads, 0, s>>>(h, partials, m, n, kPartialRows);
  }
  NB_CHECK_LAUNCH();
}

void launch_commit_columns(const dev::Welford* partials, int chunks, const dev::BnColumnArgs& bn,
                           const float* column_scale, const float* post_scale, float* affine, int n, cudaStream_t s) {
  commit_columns_kernel<<<blocks_for(32LL * n), kThreads, 0, s>>>(partials, chunks, bn, column_scale, post_scale,
                                                                  affine, n);
  NB_CHECK_LAUNCH();
}

void launch_commit_column_sums(const float* sum, const float* sumsq, int m, const dev::BnColumnArgs& bn,
                               const float* post_scale, float* affine, int n, cudaStream_t s) {
  commit_column_sums_kernel<<<blocks_for(n), kThreads, 0, s>>>(sum, sumsq, m, bn, post_scale, affine, n);
  NB_CHECK_LAUNCH();
}

template <class In>
void launch_apply_columns(const In* in, float* out, const float* affine, int m, int n, cudaStream_t s) {
  constexpr int kVec = 16 / sizeof(In);  // 8 bf16 or 4 floats: a 16-byte load, 16-byte stores
  const bool vector = n % kVec == 0 && reinterpret_cast<std::uintptr_t>(in) % 16 == 0 &&
                      reinterpret_cast<std::uintptr_t>(out) % 16 == 0;
  const long long count = (long long)m * n;
  if (vector)
    apply_columns_kernel<In, kVec><<<blocks_for(count / kVec), kThreads, 0, s>>>(in, out, affine, m, n);
  else
    apply_columns_kernel<In, 1><<<blocks_for(count), kThreads, 0, s>>>(in, out, affine, m, n);
  NB_CHECK_LAUNCH();
}

template <class In>
void launch_softmax_rows(const In* in, float* out, const float* affine, int m, int n, cudaStream_t s) {
  if (n <= kThreads * 4)
    softmax_rows_in_registers_kernel<4, In><<<m, kThreads, 0, s>>>(in, out, affine, n);
  else if (n <= kThreads * 32)
    softmax_rows_in_registers_kernel<32, In><<<m, kThreads, 0, s>>>(in, out, affine, n);
  else
    softmax_rows_kernel<<<m, kThreads, 0, s>>>(in, out, affine, n);
  NB_CHECK_LAUNCH();
}

void launch_groupnorm_rows(const float* g, float* z, const float* gamma, const float* beta, int m, int n, int groups,
                           float eps, cudaStream_t s) {
  groupnorm_rows_kernel<<<blocks_for(32LL * m * groups), kThreads, 0, s>>>(g, z, gamma, beta, m, n, groups, eps);
  NB_CHECK_LAUNCH();
}

void launch_min_rows(const float* z, float* mn, int m, int n, cudaStream_t s) {
  min_rows_kernel<<<blocks_for(32LL * m), kThreads, 0, s>>>(z, mn, m, n);
  NB_CHECK_LAUNCH();
}

void launch_min_broadcast(const float* partial_min, int tiles, const float* add_bias, float* out, int m, int n,
                          cudaStream_t s) {
  const bool vector = m % 4 == 0 && reinterpret_cast<std::uintptr_t>(out) % 16 == 0 &&
                      reinterpret_cast<std::uintptr_t>(partial_min) % 16 == 0;
  const int rows_per_cta = vector ? 128 : 32;
  // Every CTA takes its rows' minimum over the tiles before it writes them to its channels, so
  // CTAs along the channels repeat that read: about four waves of them, no more (at M = 1024 with
  // 32 tiles, 1024 columns of CTAs read 134 MB of partial minima, by count, for 32 MB of out).
  const int ctas_m = (m + rows_per_cta - 1) / rows_per_cta;
  const int ctas_c = std::max(1, std::min({1024, (n + 7) / 8, (4 * device_sm_count() + ctas_m - 1) / ctas_m}));
  const dim3 grid{unsigned(ctas_m), unsigned(ctas_c)};
  if (vector)
    min_broadcast4_kernel<<<grid, kThreads, 0, s>>>(partial_min, tiles, add_bias, out, m, n);
  else
    min_broadcast_kernel<<<grid, kThreads, 0, s>>>(partial_min, tiles, add_bias, out, m, n);
  NB_CHECK_LAUNCH();
}

// Each pass that reads h for both its storages: fp32, and a bf16 problem's bf16 h.
#define NB_INSTANTIATE(In)                                                                                       \
  template void launch_column_partials<In>(const In*, dev::Welford*, int, int, cudaStream_t);                   \
  template void launch_apply_columns<In>(const In*, float*, const float*, int, int, cudaStream_t);              \
  template void launch_softmax_rows<In>(const In*, float*, const float*, int, int, cudaStream_t);
NB_INSTANTIATE(float)
NB_INSTANTIATE(__nv_bfloat16)
#undef NB_INSTANTIATE

}  // namespace nb::linear
