#pragma once
// The pipelines' epilogues (epilogues.cuh) from the accumulators in registers, for the persistent
// Hopper GEMM (kernels/gemm/sm90/fragment_tile.cuh): the same results from the same parameters,
// with no staged tile. A row of the tile lies in one quad, so GroupNorm and the row minimum are
// shuffles; a column's 128 rows lie in the 8 consumer warps, so its statistics meet in the scratch.
// The tensor cores wait while an epilogue runs, so each is written in phases of independent steps
// (every column's or group's shuffle of one distance, then the next) rather than one column or
// group after another, and its per-column parameters are loaded before the tile's mainloop.
#include <cuda_runtime.h>

#include "kernels/gemm/sm90/fragment_tile.cuh"
#include "kernels/gemm_pipelines/epilogues.cuh"
#include "kernels/primitives/reduce.cuh"

namespace nb::linear::dev {

using gemm::sm90::FragmentTile;

// --- the columns of a tile: a column's 128 rows lie in the 8 consumer warps ---

inline constexpr int kFragmentWarps = 8, kFragmentCols = 256;

// Each warp's sum of f(value, column) over its 16 rows into sums[warp * 256 + column]; rows past
// the tile's count nothing. The 64 columns' shuffles go distance by distance.
template <class F>
__device__ void warp_column_sums(const float (&acc)[128], const FragmentTile& t, float* sums, F f) {
  const bool lower = t.has_row(0), upper = t.has_row(1);
  float v[64];
#pragma unroll
  for (int j = 0; j < 32; ++j)
#pragma unroll
    for (int e = 0; e < 2; ++e) {
      const int c = t.column(j, e);
      v[2 * j + e] = (lower ? f(acc[4 * j + e], c) : 0.0f) + (upper ? f(acc[4 * j + 2 + e], c) : 0.0f);
    }
#pragma unroll
  for (int distance = 4; distance < 32; distance *= 2)
#pragma unroll
    for (int i = 0; i < 64; ++i) v[i] += __shfl_xor_sync(0xffffffffu, v[i], distance);
  if (threadIdx.x % 32 >= 4) return;  // quad 0 holds the warp's sums
#pragma unroll
  for (int j = 0; j < 32; ++j)
#pragma unroll
    for (int e = 0; e < 2; ++e) sums[t.warp * kFragmentCols + t.column(j, e)] = v[2 * j + e];
}

__device__ inline float warps_total(const float* sums, int c) {
  float total = 0.0f;
#pragma unroll
  for (int w = 0; w < kFragmentWarps; ++w) total += sums[w * kFragmentCols + c];
  return total;
}

// acc = f(acc, c) for every value of the tile's columns c < t.cols (c is the tile's column).
template <class F>
__device__ void transform_columns(float (&acc)[128], const FragmentTile& t, F f) {
#pragma unroll
  for (int j = 0; j < 32; ++j)
#pragma unroll
    for (int e = 0; e < 2; ++e) {
      const int c = t.column(j, e);
      if (c >= t.cols) continue;
      acc[4 * j + e] = f(acc[4 * j + e], c);
      acc[4 * j + 2 + e] = f(acc[4 * j + 2 + e], c);
    }
}

// acc = (acc + add[c]) * scale[c], add and scale tables of 256 in shared memory (the bias and the
// per-column scale of h = (g + b) * s).
__device__ inline void add_then_scale(float (&acc)[128], const FragmentTile& t, const float* add, const float* scale) {
  transform_columns(acc, t, [add, scale](float v, int c) { return (v + add[c]) * scale[c]; });
}

// Every consumer thread: the exact statistics of each column over the tile's rows, its mean
// first (into means[c]), then the squared deviations from it. Returns the moments of column
// t.thread for t.thread < t.cols. Uses sums (8 x 256 floats) and means (256); the caller has
// passed a consumer_sync() since the scratch was last read.
__device__ inline Welford tile_column_moments(const float (&acc)[128], const FragmentTile& t, float* sums,
                                              float* means) {
  warp_column_sums(acc, t, sums, [](float v, int) { return v; });
  gemm::sm90::consumer_sync();
  if (t.thread < t.cols) means[t.thread] = warps_total(sums, t.thread) / float(t.rows);
  gemm::sm90::consumer_sync();
  warp_column_sums(acc, t, sums, [means](float v, int c) {
    const float d = v - means[c];
    return d * d;
  });
  gemm::sm90::consumer_sync();
  Welford w;
  if (t.thread < t.cols) {
    w.count = float(t.rows);
    w.mean = means[t.thread];
    w.m2 = warps_total(sums, t.thread);
  }
  return w;
}

// The tile's values into the row-major (M, n) matrix `out`, row by row, a column pair per store
// where out's rows keep 8-byte alignment.
__device__ inline void store_rows(const float (&acc)[128], const FragmentTile& t, float* out, int n) {
  const bool pairs = n % 2 == 0;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    if (!t.has_row(h)) continue;
    float* row = out + (long long)(t.row0 + t.row(h)) * n + t.col0;
#pragma unroll
    for (int j = 0; j < 32; ++j) {
      const int c = t.column(j, 0);
      const float v0 = acc[4 * j + 2 * h], v1 = acc[4 * j + 2 * h + 1];
      if (pairs && c + 1 < t.cols) {
        *reinterpret_cast<float2*>(row + c) = make_float2(v0, v1);
      } else {
        if (c < t.cols) row[c] = v0;
        if (c + 1 < t.cols) row[c + 1] = v1;
      }
    }
  }
}

// ColumnStatsEpilogue: h = (g + b) * s stored, and each column's exact statistics over the tile's
// rows (its mean first, then the squared deviations from it) into partials[tile_m * n + col].
struct ColumnStatsFragment {
  ColumnStatsEpilogue p;

  static constexpr int kCols = kFragmentCols;
  // A sum per warp and column; the means; the bias and scale.
  static constexpr int kScratchFloats = kFragmentWarps * kCols + kCols + 2 * kCols;
  using Early = gemm::sm90::TileColumnValues<2>;  // bias, scale

  __device__ Early load_early(const FragmentTile& t) const {
    Early early{};
    if (t.thread < t.cols) {
      early.v[0] = p.bias[t.col0 + t.thread];
      early.v[1] = p.scale != nullptr ? p.scale[t.col0 + t.thread] : 1.0f;
    }
    return early;
  }

  __device__ void operator()(float (&acc)[128], const FragmentTile& t, const Early& early) const {
    float* sums = t.scratch;
    float* means = sums + kFragmentWarps * kCols;
    float* columns = means + kCols;
    gemm::sm90::consumer_sync();  // the previous tile's call has read the scratch
    early.publish(columns, t);
    add_then_scale(acc, t, columns, columns + kCols);
    store_rows(acc, t, p.h, p.n);
    const Welford w = tile_column_moments(acc, t, sums, means);
    if (t.thread < t.cols) p.partials[(long long)t.tile_m * p.n + t.col0 + t.thread] = w;
  }
};

// GroupNormMinEpilogue with partial_min (out unused): the bias, each (row, group) normalized, and
// each row's minimum over the tile's channels into partial_min[tile_n * m + row]. A group is
// kChunks runs of 8 columns, so a thread holds 2 kChunks of its values and the quad the rest.
struct GroupNormMinFragment {
  GroupNormMinEpilogue p;

  static constexpr int kCols = 256;
  static constexpr int kScratchFloats = 3 * kCols;  // the tile's bias, gamma and beta
  using Early = gemm::sm90::TileColumnValues<3>;
  // The group sizes it runs: whole runs of 8 columns that divide the 256 of a tile.
  static constexpr bool runs(int group_size) { return group_size >= 8 && group_size <= 256 && 256 % group_size == 0; }

  __device__ Early load_early(const FragmentTile& t) const {
    Early early{};
    if (t.thread < t.cols) {
      const int col = t.col0 + t.thread;
      early.v[0] = p.bias[col];
      early.v[1] = p.gamma[col];
      early.v[2] = p.beta[col];
    }
    return early;
  }

  // Both rows of kBatch groups at a time, each step over all of them before the next.
  template <int kChunks>
  __device__ void normalize_rows(float (&acc)[128], const FragmentTile& t, const float* columns) const {
    constexpr int kGroups = 32 / kChunks, kBatch = kGroups < 4 ? kGroups : 4;
    const nb::dev::MinNanOp min_of;
    const float inv_size = 1.0f / float(p.group_size);
    float row_min[2] = {min_of.identity(), min_of.identity()};
#pragma unroll
    for (int g0 = 0; g0 < kGroups; g0 += kBatch) {
      if (8 * kChunks * g0 >= t.cols) break;  // the tile's last columns (the same for the whole warp)
      bool whole[kBatch];                      // the group lies inside the tile's columns
      float mean[2][kBatch], invstd[2][kBatch];
#pragma unroll
      for (int b = 0; b < kBatch; ++b) {
        whole[b] = 8 * kChunks * (g0 + b) < t.cols;
        mean[0][b] = mean[1][b] = 0.0f;
#pragma unroll
        for (int i = 0; i < kChunks; ++i)
#pragma unroll
          for (int e = 0; e < 2; ++e) {
            const int j = (g0 + b) * kChunks + i;
            const float bias = whole[b] ? columns[t.column(j, e)] : 0.0f;
#pragma unroll
            for (int h = 0; h < 2; ++h) {
              acc[4 * j + 2 * h + e] += bias;
              mean[h][b] += acc[4 * j + 2 * h + e];
            }
          }
      }
      quad_sums(mean);
#pragma unroll
      for (int b = 0; b < kBatch; ++b)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          mean[h][b] *= inv_size;
          invstd[h][b] = 0.0f;
#pragma unroll
          for (int i = 0; i < kChunks; ++i)
#pragma unroll
            for (int e = 0; e < 2; ++e) {
              const float d = acc[4 * ((g0 + b) * kChunks + i) + 2 * h + e] - mean[h][b];
              invstd[h][b] = fmaf(d, d, invstd[h][b]);
            }
        }
      quad_sums(invstd);
#pragma unroll
      for (int b = 0; b < kBatch; ++b)
#pragma unroll
        for (int h = 0; h < 2; ++h) invstd[h][b] = rsqrtf(invstd[h][b] * inv_size + p.eps);
#pragma unroll
      for (int b = 0; b < kBatch; ++b) {
        if (!whole[b]) continue;
#pragma unroll
        for (int i = 0; i < kChunks; ++i)
#pragma unroll
          for (int e = 0; e < 2; ++e) {
            const int j = (g0 + b) * kChunks + i, c = t.column(j, e);
            const float gamma = columns[kCols + c], beta = columns[2 * kCols + c];
#pragma unroll
            for (int h = 0; h < 2; ++h) {
              const float y = fmaf((acc[4 * j + 2 * h + e] - mean[h][b]) * invstd[h][b], gamma, beta);
              row_min[h] = min_of(row_min[h], y);
            }
          }
      }
    }
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      row_min[h] = gemm::sm90::quad_reduce(row_min[h], min_of);
      if (t.quad == 0 && t.has_row(h)) p.partial_min[(long long)t.tile_n * p.m + t.row0 + t.row(h)] = row_min[h];
    }
  }

  // v summed over each quad, every entry's shuffle of one distance before the next distance.
  template <int kBatch>
  __device__ static void quad_sums(float (&v)[2][kBatch]) {
#pragma unroll
    for (int distance = 1; distance < 4; distance *= 2)
#pragma unroll
      for (int b = 0; b < kBatch; ++b)
#pragma unroll
        for (int h = 0; h < 2; ++h) v[h][b] += __shfl_xor_sync(0xffffffffu, v[h][b], distance);
  }

  __device__ void operator()(float (&acc)[128], const FragmentTile& t, const Early& early) const {
    gemm::sm90::consumer_sync();  // the previous tile's call has read the scratch
    early.publish(t.scratch, t);
    switch (p.group_size) {
      case 8: normalize_rows<1>(acc, t, t.scratch); break;
      case 16: normalize_rows<2>(acc, t, t.scratch); break;
      case 32: normalize_rows<4>(acc, t, t.scratch); break;
      case 64: normalize_rows<8>(acc, t, t.scratch); break;
      case 128: normalize_rows<16>(acc, t, t.scratch); break;
      default: normalize_rows<32>(acc, t, t.scratch); break;  // 256: runs() admits nothing else
    }
  }
};

}  // namespace nb::linear::dev
