#pragma once
// BatchNorm whole inside the Hopper GEMM's epilogue where the batch is at most 8 tiles of 128 rows:
// the CTAs of a cluster hold the M tiles of one column strip (launch_wgmma_persistent_clusters);
// each takes its columns' moments over its rows, pushes them into every CTA of the cluster
// (st.async onto that CTA's mbarrier), merges the cluster's in rank order (the same bits in every
// CTA) and writes y = s_post * bn((g + b) * s) from the accumulators: h is never stored, and no
// statistics kernel or normalize pass follows the GEMM.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/gemm/sm90/fragment_tile.cuh"
#include "kernels/gemm/sm90/wgmma_gemm.hpp"
#include "kernels/gemm_pipelines/fragment_epilogues.cuh"
#include "kernels/primitives/cluster_exchange.cuh"
#include "kernels/primitives/mbarrier.cuh"

namespace nb::linear::dev {

struct ClusterBnFragment {
  ClusterBnEpilogue p;

  static constexpr int kCols = kFragmentCols, kMaxRanks = gemm::sm90::kMaxClusterTilesM;
  // The scratch, in floats: the published columns (bias, scale), each warp's column sums, the
  // tile's means, the cluster's moments (mean, M2) by sending rank, the affine of y, and two
  // mbarriers.
  static constexpr int kSumsAt = 2 * kCols, kMeansAt = kSumsAt + kFragmentWarps * kCols,
                       kReceivedAt = kMeansAt + kCols, kAffineAt = kReceivedAt + 2 * kMaxRanks * kCols,
                       kBarriersAt = kAffineAt + 2 * kCols;
  static constexpr int kScratchFloats = kBarriersAt + 4;
  static_assert(kReceivedAt % 2 == 0 && kBarriersAt % 2 == 0, "pushed pairs and mbarriers take 8-byte alignment");
  using Early = gemm::sm90::TileColumnValues<2>;  // bias, scale

  // `arrived` completes a round when this CTA has announced the round's bytes and every CTA's
  // moments have landed; `freed` when every CTA has read this CTA's moments of the round, so that
  // it may push the next round's into the same buffers.
  __device__ static std::uint64_t* arrived(float* scratch) {
    return reinterpret_cast<std::uint64_t*>(scratch + kBarriersAt);
  }
  __device__ static std::uint64_t* freed(float* scratch) { return arrived(scratch) + 1; }

  __device__ void enter_cluster(float* scratch) const {
    nb::dev::mbarrier_init(arrived(scratch), 1);
    nb::dev::mbarrier_init(freed(scratch), int(cooperative_groups::this_cluster().num_blocks()));
    nb::dev::fence_barrier_init();
  }

  __device__ Early load_early(const FragmentTile& t) const {
    Early early{};
    if (t.thread < t.cols) {
      const int col = t.col0 + t.thread;
      early.v[0] = p.bias[col];
      early.v[1] = p.scale != nullptr ? p.scale[col] : 1.0f;
    }
    return early;
  }

  __device__ void operator()(float (&acc)[128], const FragmentTile& t, const Early& early) const {
    const auto cluster = cooperative_groups::this_cluster();
    const unsigned ranks = cluster.num_blocks(), me = cluster.block_rank();
    float* columns = t.scratch;
    float* affine = t.scratch + kAffineAt;
    auto* received = reinterpret_cast<float2*>(t.scratch + kReceivedAt);  // [sending rank][column]
    // This CTA may push its moments into every CTA again once each has read the last round's (long
    // done: a mainloop ago).
    if (t.tiles_before > 0) nb::dev::mbarrier_wait<true>(freed(t.scratch), unsigned(t.tiles_before - 1) & 1);
    gemm::sm90::consumer_sync();  // the previous tile's call has read the scratch
    early.publish(columns, t);
    add_then_scale(acc, t, columns, columns + kCols);
    const Welford mine = tile_column_moments(acc, t, t.scratch + kSumsAt, t.scratch + kMeansAt);

    // Every CTA's (mean, M2) of this strip into every CTA; a tile's count is its rows, which each
    // CTA knows from the sender's rank (rank r holds the rows 128 r..).
    const unsigned round = unsigned(t.tiles_before);
    if (t.thread == 0) nb::dev::mbarrier_arrive_expect_bytes(arrived(t.scratch), ranks * unsigned(t.cols) * 8u);
    if (t.thread < t.cols) {
      const float2 v = make_float2(mine.mean, mine.m2);
      for (unsigned r = 0; r < ranks; ++r)
        nb::dev::push_value(nb::dev::cluster_address(&received[me * kCols + t.thread], r), v,
                            nb::dev::cluster_address(arrived(t.scratch), r));
    }
    nb::dev::mbarrier_wait<true>(arrived(t.scratch), round & 1);

    if (t.thread < t.cols) {
      // Gamma, beta and s_post are loaded only now, to land while the moments merge: held through
      // the mainloop, the moments or the wait above, they spilled.
      const float gamma = p.bn.gamma[t.col0 + t.thread], beta = p.bn.beta[t.col0 + t.thread];
      const float post = p.post_scale != nullptr ? *p.post_scale : 1.0f;
      Welford all;
      for (unsigned r = 0; r < ranks; ++r) {
        const float2 v = received[r * kCols + t.thread];
        Welford part;
        part.count = float(min(gemm::sm90::kWgmmaTileM, p.m - int(r) * gemm::sm90::kWgmmaTileM));
        part.mean = v.x;
        part.m2 = v.y;
        all.merge(part);
      }
      const ColumnStatistics s = column_statistics(p.bn, all);
      if (me == 0) commit_statistics(p.bn, t.col0 + t.thread, s);
      const ColumnAffine f = column_affine(s, gamma, beta);
      affine[t.thread] = f.scale * post;
      affine[kCols + t.thread] = f.shift * post;
    }
    gemm::sm90::consumer_sync();  // the affine is published and every thread has read `received`
    if (t.more_tiles && t.thread < ranks)  // thread r tells rank r (the last round frees nothing)
      nb::dev::mbarrier_arrive_remote(nb::dev::cluster_address(freed(t.scratch), t.thread));

#pragma unroll
    for (int j = 0; j < 32; ++j)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int c = t.column(j, e);
        if (c >= t.cols) continue;
        const float scale = affine[c], shift = affine[kCols + c];
        acc[4 * j + e] = fmaf(acc[4 * j + e], scale, shift);
        acc[4 * j + 2 + e] = fmaf(acc[4 * j + 2 + e], scale, shift);
      }
    store_rows(acc, t, p.y, p.n);
  }
};

}  // namespace nb::linear::dev
