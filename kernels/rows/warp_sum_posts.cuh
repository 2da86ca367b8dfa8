#pragma once
// A row's two sums posted by every warp of every block of a cluster and collected a row later:
// ClusterReducerOn's post_sum2 and collect_sum2 (row_reducers.cuh) with no block reduction in
// front, whose two barriers every row paid. Each warp pushes its own sums to every block
// (WarpClusterExchange on four buffers, so one round may wait uncollected); the collection folds
// ranks x warps slots across the lanes, the same bits in every thread of the cluster.
#include <cuda_runtime.h>

#include "kernels/primitives/reduce.cuh"
#include "kernels/primitives/warp_cluster_exchange.cuh"
#include "kernels/rows/row_plan.hpp"

namespace nb::rows {

template <int kWarps>
struct WarpSumPosts {
  using Exchange = dev::WarpClusterExchange<float2, kWarps, kMaxParts, 4>;
  Exchange& exchange;
  int parts;
  unsigned round = 0;

  // Every thread of the block; blockDim.x a multiple of 32, at most kWarps warps; a cluster (parts
  // >= 2: a block does not push to itself).
  __device__ WarpSumPosts(Exchange& exchange_, int parts_) : exchange(exchange_), parts(parts_) {
    exchange.enter(parts);
  }

  // Posts this thread's two sums, added over its warp; returns the round to collect.
  __device__ unsigned post_sum2(float2 v) {
    exchange.send(dev::warp_sum2(v), round, parts, int(blockDim.x >> 5));
    return round++;
  }
  // The cluster's totals of a posted round, after at most one more round posted.
  __device__ float2 collect_sum2(unsigned posted) {
    const float2 share = exchange.receive_lane_share(
        posted, parts, int(blockDim.x >> 5),
        [](float2& sum, const float2& next) {
          sum.x += next.x;
          sum.y += next.y;
        },
        make_float2(0.0f, 0.0f));
    return dev::warp_sum2(share);
  }
  __device__ void finish() const { exchange.leave(parts); }
};

}  // namespace nb::rows
