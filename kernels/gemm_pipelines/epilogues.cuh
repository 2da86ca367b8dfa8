#pragma once
// Epilogue policies of the pipeline GEMMs (the TileView contract of kernels/gemm/tile_view.cuh):
// what each op does with a tile while it is still on chip. The mainloop knows none of them.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "harness/host_device.hpp"
#include "kernels/primitives/reduce.cuh"
#include "kernels/gemm/tile_view.cuh"
#include "kernels/gemm_pipelines/bn_columns.cuh"
#include "kernels/gemm_pipelines/grid_barrier.cuh"

namespace nb::linear::dev {

// The GEMM's per-column bias: fp32, or bf16 as autocast stores it for the bf16 problems.
struct ColumnBias {
  const float* f32 = nullptr;
  const __nv_bfloat16* bf16 = nullptr;

  // Implicit, so that an epilogue's bias member is initialised from either pointer.
  ColumnBias() = default;
  NB_HD ColumnBias(const float* p) : f32(p) {}
  NB_HD ColumnBias(const __nv_bfloat16* p) : bf16(p) {}
  __device__ float operator[](int c) const { return f32 != nullptr ? f32[c] : __bfloat162float(bf16[c]); }
};

// v = (acc + bias[c]) * scale[c] (scale may be null) over the whole staged tile, in place.
__device__ __forceinline__ void bias_scale_tile(const gemm::TileView& t, ColumnBias bias, const float* scale) {
  for (int i = threadIdx.x; i < t.rows * t.cols; i += blockDim.x) {
    const int r = i / t.cols, c = i % t.cols, col = t.col0 + c;
    float v = t.s[r * t.ld + c] + bias[col];
    if (scale) v *= scale[col];
    t.s[r * t.ld + c] = v;
  }
}

// Coalesced copy of the tile to a row-major (., ld) matrix.
__device__ __forceinline__ void store_tile(const gemm::TileView& t, float* out, int ld) {
  for (int i = threadIdx.x; i < t.rows * t.cols; i += blockDim.x) {
    const int r = i / t.cols, c = i % t.cols;
    out[(long long)(t.row0 + r) * ld + t.col0 + c] = t.s[r * t.ld + c];
  }
}

// BatchNorm, pass one: h = (g + b) * s is stored, and each column's exact statistics over the
// tile's rows go to partials[tile_m * n + col]; a later step merges the M / BM partials.
struct ColumnStatsEpilogue {
  static constexpr int kScratchFloats = 0;
  ColumnBias bias;
  const float* scale;  // null: no per-column scale (L2#84 normalizes g itself)
  float* h;            // (M, N)
  Welford* partials;   // (tiles_m, N)
  int n;

  __device__ void operator()(const gemm::TileView& t) const {
    bias_scale_tile(t, bias, scale);
    __syncthreads();
    store_tile(t, h, n);
    for (int c = threadIdx.x; c < t.cols; c += blockDim.x)
      partials[(long long)t.tile_m * n + t.col0 + c] = column_moments(t.s + c, t.ld, t.rows);
  }
};

// BatchNorm when the tile holds every row (M <= BM): statistics, commit and normalize in one
// go, y = s_post * bn(h) written once (s_post = 1 for L2#33; L2#84's softmax comes after).
struct WholeColumnBnEpilogue {
  static constexpr int kScratchFloats = 0;
  const float* bias;
  const float* scale;  // per-column scale before BN, or null
  BnColumnArgs bn;
  const float* post_scale;  // one scalar after BN, or null
  float* y;
  int n;

  __device__ void operator()(const gemm::TileView& t) const {
    bias_scale_tile(t, bias, scale);
    __syncthreads();
    const float post = post_scale ? *post_scale : 1.0f;
    for (int c = threadIdx.x; c < t.cols; c += blockDim.x) {
      const ColumnAffine f = commit_column(bn, t.col0 + c, column_moments(t.s + c, t.ld, t.rows));
      for (int r = 0; r < t.rows; ++r) t.s[r * t.ld + c] = post * fmaf(t.s[r * t.ld + c], f.scale, f.shift);
    }
    __syncthreads();
    store_tile(t, y, n);
  }
};

// Softmax of one row in place by one warp; the row was written by other CTAs, so its loads
// bypass L1 (__ldcg).
__device__ __forceinline__ void warp_softmax_row(float* row, int n) {
  const int lane = threadIdx.x & 31;
  float mx = -INFINITY;
  for (int c = lane; c < n; c += 32) mx = fmaxf(mx, __ldcg(row + c));
  mx = nb::dev::warp_reduce(mx, nb::dev::MaxOp{});
  float sum = 0.0f;
  for (int c = lane; c < n; c += 32) sum += expf(__ldcg(row + c) - mx);
  const float inv = 1.0f / nb::dev::warp_sum(sum);
  for (int c = lane; c < n; c += 32) row[c] = expf(__ldcg(row + c) - mx) * inv;
}

// L2#84 in one launch (cooperative, M <= BM): each CTA writes s * bn(g) for its columns, the
// grid meets at a barrier, then a warp per row (rows spread over every CTA) runs the softmax.
struct WholeColumnBnSoftmaxEpilogue {
  static constexpr int kScratchFloats = 0;
  WholeColumnBnEpilogue bn;
  GridBarrierState* barrier;
  int m;

  __device__ void operator()(const gemm::TileView& t) const {
    bn(t);
    grid_barrier(barrier);
    const int warps = blockDim.x >> 5, ctas = gridDim.x * gridDim.y, cta = blockIdx.y * gridDim.x + blockIdx.x;
    for (int r = cta * warps + (threadIdx.x >> 5); r < m; r += ctas * warps)
      warp_softmax_row(bn.y + (long long)r * bn.n, bn.n);
  }
};

// BatchNorm when a team of CTAs holds every row of its columns (M <= 16 tiles of the Hopper GEMM;
// whole_column_fragment.cuh): y = s_post * bn((g + b) * s) written once from the accumulators, h
// never stored (L2#84's row softmax follows in a pass over y). The team's CTAs meet through
// global memory: each column strip's (tiles_m, 256) moments and its arrival count, zeroed before
// each launch.
struct TeamBnEpilogue {
  ColumnBias bias;
  const float* scale;       // per-column scale before BN, or null
  const float* post_scale;  // one scalar after BN, or null
  BnColumnArgs bn;
  float* y;
  float2* moments;     // (tiles_n, tiles_m, 256): (mean, M2) of each tile's columns
  unsigned* arrivals;  // (tiles_n): the team's CTAs that have written their strip's moments
  int m, n;
};

// GroupNorm + min over the channels (L2#75) while the tile is on chip: g is never written.
// Each (row, group) is normalized from the tile (every group lies inside one tile: the host
// checks BN % (N / G) == 0), then each row's minimum over the tile's channels goes to
// partial_min[tile_n * m + row], or, when the tile spans all N channels and `out` is set,
// straight into the broadcast output out[c * m + row] = min + add_bias[c].
struct GroupNormMinEpilogue {
  static constexpr int kScratchFloats = 0;
  ColumnBias bias;
  const float* gamma;
  const float* beta;
  const float* add_bias;  // (N): used with out
  float* partial_min;     // (tiles_n, M): used without out
  float* out;             // (N, M): the (1, N, M, 1) result, when tiles_n == 1
  int m, group_size;
  float eps;

  __device__ void operator()(const gemm::TileView& t) const {
    bias_scale_tile(t, bias, nullptr);
    __syncthreads();
    const int groups = t.cols / group_size;
    for (int task = threadIdx.x; task < t.rows * groups; task += blockDim.x) {
      float* v = t.s + (task / groups) * t.ld + (task % groups) * group_size;
      const int c0 = t.col0 + (task % groups) * group_size;
      float sum = 0.0f, m2 = 0.0f;
      for (int i = 0; i < group_size; ++i) sum += v[i];
      const float mean = sum / float(group_size);
      for (int i = 0; i < group_size; ++i) m2 = fmaf(v[i] - mean, v[i] - mean, m2);
      const float invstd = 1.0f / sqrtf(m2 / float(group_size) + eps);
      for (int i = 0; i < group_size; ++i) v[i] = fmaf((v[i] - mean) * invstd, gamma[c0 + i], beta[c0 + i]);
    }
    __syncthreads();
    // One warp per row: the minimum over the tile's channels.
    const int lane = threadIdx.x & 31, warps = blockDim.x >> 5;
    for (int r = threadIdx.x >> 5; r < t.rows; r += warps) {
      const nb::dev::MinNanOp min_of;
      float mn = min_of.identity();
      for (int c = lane; c < t.cols; c += 32) mn = min_of(mn, t.s[r * t.ld + c]);
      mn = nb::dev::warp_reduce(mn, min_of);
      if (lane == 0) t.s[r * t.ld] = mn;  // column 0 is free again once the warp has read it
    }
    __syncthreads();
    if (!out) {
      for (int r = threadIdx.x; r < t.rows; r += blockDim.x) partial_min[(long long)t.tile_n * m + t.row0 + r] = t.s[r * t.ld];
      return;
    }
    for (int i = threadIdx.x; i < t.rows * t.cols; i += blockDim.x) {
      const int c = i / t.rows, r = i % t.rows;  // rows fastest: consecutive addresses of out
      out[(long long)c * m + t.row0 + r] = t.s[r * t.ld] + add_bias[c];
    }
  }
};

}  // namespace nb::linear::dev
