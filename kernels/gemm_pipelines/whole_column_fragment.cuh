#pragma once
// BatchNorm whole inside the Hopper GEMM's epilogue where the batch is at most 16 tiles of 128
// rows: a team of resident CTAs holds the M tiles of one column strip in the same turn
// (launch_wgmma_persistent_teams); each writes its columns' moments over its rows to global
// memory, meets its team at the strip's counter, merges the team's moments in tile order (the
// same bits in every CTA) and writes y = s_post * bn((g + b) * s) from the accumulators: h is
// never stored, and no statistics kernel or normalize pass follows the GEMM.
#include <cuda_runtime.h>

#include "kernels/gemm/sm90/fragment_tile.cuh"
#include "kernels/gemm/sm90/wgmma_gemm.hpp"
#include "kernels/gemm_pipelines/fragment_epilogues.cuh"
#include "kernels/gemm_pipelines/grid_barrier.cuh"

namespace nb::linear::dev {

struct TeamBnFragment {
  TeamBnEpilogue p;

  static constexpr int kCols = kFragmentCols;
  // The scratch, in floats: the published bias, scale, gamma and beta, each warp's column sums,
  // the tile's means, the affine of y.
  static constexpr int kSumsAt = 4 * kCols, kMeansAt = kSumsAt + kFragmentWarps * kCols, kAffineAt = kMeansAt + kCols;
  static constexpr int kScratchFloats = kAffineAt + 2 * kCols;
  using Early = gemm::sm90::TileColumnValues<4>;  // bias, scale, gamma, beta

  __device__ Early load_early(const FragmentTile& t) const {
    Early early{};
    if (t.thread < t.cols) {
      const int col = t.col0 + t.thread;
      early.v[0] = p.bias[col];
      early.v[1] = p.scale != nullptr ? p.scale[col] : 1.0f;
      early.v[2] = p.bn.gamma[col];
      early.v[3] = p.bn.beta[col];
    }
    return early;
  }

  __device__ void operator()(float (&acc)[128], const FragmentTile& t, const Early& early) const {
    const int team = gemm::sm90::wgmma_tiles_m(p.m);
    float* columns = t.scratch;
    float* affine = t.scratch + kAffineAt;
    gemm::sm90::consumer_sync();  // the previous tile's call has read the scratch
    early.publish(columns, t);
    add_then_scale(acc, t, columns, columns + kCols);
    const Welford mine = tile_column_moments(acc, t, t.scratch + kSumsAt, t.scratch + kMeansAt);

    // The strip's moments, one row of 256 per tile of the team; a tile's count is its rows.
    float2* strip = p.moments + (long long)t.tile_n * team * kCols;
    if (t.thread < t.cols) strip[t.tile_m * kCols + t.thread] = make_float2(mine.mean, mine.m2);
    gemm::sm90::consumer_sync();
    if (t.thread == 0) team_arrive_and_wait(p.arrivals + t.tile_n, unsigned(team));
    gemm::sm90::consumer_sync();

    if (t.thread < t.cols) {
      const float gamma = columns[2 * kCols + t.thread], beta = columns[3 * kCols + t.thread];
      const float post = p.post_scale != nullptr ? *p.post_scale : 1.0f;
      Welford all;
#pragma unroll 4  // four tiles' loads in flight at a time
      for (int r = 0; r < team; ++r) {
        const float2 v = __ldcg(&strip[r * kCols + t.thread]);  // written by other SMs: not from L1
        Welford part;
        part.count = float(min(gemm::sm90::kWgmmaTileM, p.m - r * gemm::sm90::kWgmmaTileM));
        part.mean = v.x;
        part.m2 = v.y;
        all.merge(part);
      }
      const ColumnStatistics s = column_statistics(p.bn, all);
      if (t.tile_m == 0) commit_statistics(p.bn, t.col0 + t.thread, s);
      const ColumnAffine f = column_affine(s, gamma, beta);
      affine[t.thread] = f.scale * post;
      affine[kCols + t.thread] = f.shift * post;
    }
    gemm::sm90::consumer_sync();

    transform_columns(acc, t, [affine](float v, int c) { return fmaf(v, affine[c], affine[kCols + c]); });
    store_rows(acc, t, p.y, p.n);
  }
};

}  // namespace nb::linear::dev
