#pragma once
// Column sums of an (M, N) row-major computation, deterministic: a CTA of 32 columns x 8 row
// groups reduces one chunk of kChunkRows rows into partials[sum][chunk][column], and the caller
// adds the chunks in order. `Terms` yields the kSums values one element contributes.
#include <cuda_runtime.h>

namespace nb::gemm_scale_bn_bwd::dev {

inline constexpr int kChunkRows = 128;
inline constexpr int kColumnsPerCta = 32, kRowGroups = 8;

inline int column_chunks(int m) { return (m + kChunkRows - 1) / kChunkRows; }

// Terms: struct with static constexpr int kSums and
//   __device__ void operator()(int row, int col, float (&out)[kSums]) const;
template <class Terms>
__global__ void __launch_bounds__(kColumnsPerCta* kRowGroups) column_partials(Terms terms, int m, int n,
                                                                              float* partials) {
  constexpr int S = Terms::kSums;
  __shared__ float share[S][kRowGroups][kColumnsPerCta];
  const int col = blockIdx.x * kColumnsPerCta + threadIdx.x;
  const int row0 = blockIdx.y * kChunkRows, row1 = min(m, row0 + kChunkRows);
  float acc[S];
#pragma unroll
  for (int s = 0; s < S; ++s) acc[s] = 0.f;
  if (col < n) {
#pragma unroll 4
    for (int row = row0 + threadIdx.y; row < row1; row += kRowGroups) {
      float v[S];
      terms(row, col, v);
#pragma unroll
      for (int s = 0; s < S; ++s) acc[s] += v[s];
    }
  }
#pragma unroll
  for (int s = 0; s < S; ++s) share[s][threadIdx.y][threadIdx.x] = acc[s];
  __syncthreads();
  if (threadIdx.y != 0 || col >= n) return;
  const int chunks = gridDim.y;
#pragma unroll
  for (int s = 0; s < S; ++s) {
    float total = 0.f;
#pragma unroll
    for (int g = 0; g < kRowGroups; ++g) total += share[s][g][threadIdx.x];
    partials[(std::size_t(s) * chunks + blockIdx.y) * n + col] = total;
  }
}

template <class Terms>
void launch_column_partials(const Terms& terms, int m, int n, float* partials, cudaStream_t stream) {
  const dim3 grid(unsigned((n + kColumnsPerCta - 1) / kColumnsPerCta), unsigned(column_chunks(m)));
  column_partials<<<grid, dim3(kColumnsPerCta, kRowGroups), 0, stream>>>(terms, m, n, partials);
}

// The S sums of the CTA's 32 columns from their chunk partials, by a CTA of 32 x 8 threads (a
// grid of one CTA per 32 columns): thread (x, y) adds chunks y, y + 8, ... in order, then the
// eight subtotals are added in order, so the totals are deterministic. True for the threads that
// hold a column's totals (y == 0, column < n); every thread must call it (a block barrier).
template <int S>
__device__ bool cta_chunk_totals(const float* partials, int chunks, int n, float (&total)[S]) {
  __shared__ float share[S][kRowGroups][kColumnsPerCta];
  const int col = blockIdx.x * kColumnsPerCta + threadIdx.x;
#pragma unroll
  for (int s = 0; s < S; ++s) {
    float acc = 0.f;
    if (col < n)
      for (int c = threadIdx.y; c < chunks; c += kRowGroups) acc += partials[(std::size_t(s) * chunks + c) * n + col];
    share[s][threadIdx.y][threadIdx.x] = acc;
  }
  __syncthreads();
  if (threadIdx.y != 0 || col >= n) return false;
#pragma unroll
  for (int s = 0; s < S; ++s) {
    total[s] = 0.f;
#pragma unroll
    for (int g = 0; g < kRowGroups; ++g) total[s] += share[s][g][threadIdx.x];
  }
  return true;
}

// The grid and block of a kernel that calls cta_chunk_totals over n columns.
inline dim3 chunk_totals_grid(int n) { return dim3(unsigned((n + kColumnsPerCta - 1) / kColumnsPerCta)); }
inline dim3 chunk_totals_block() { return dim3(kColumnsPerCta, kRowGroups); }

// Sum `s` of column `col`: the chunks' partials added in order.
__device__ inline float chunk_total(const float* partials, int s, int chunks, int n, int col) {
  float total = 0.f;
  for (int c = 0; c < chunks; ++c) total += partials[(std::size_t(s) * chunks + c) * n + col];
  return total;
}

}  // namespace nb::gemm_scale_bn_bwd::dev
