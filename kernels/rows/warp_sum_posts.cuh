#pragma once
// A row's two sums over a cluster, posted by every warp of every block (a WarpClusterExchange of
// four buffers) and collected a round later, each warp folding ranks x warps slots across its
// lanes: the same bits in every thread of the cluster, and no block barrier before the round trip
// (row_reducers.cuh's ClusterReducer reduces over the block first, two barriers, and pushes one
// value a block).
#include <cuda_runtime.h>

#include "kernels/primitives/reduce.cuh"
#include "kernels/primitives/warp_cluster_exchange.cuh"
#include "kernels/rows/row_plan.hpp"

namespace nb::rows {

// Every thread of the block constructs it (blockDim.x a multiple of 32, at most kWarps warps) on a
// cluster of parts >= 2 (a block does not push to itself).
template <int kWarps>
struct WarpSumPosts {
  using Exchange = dev::WarpClusterExchange<float2, kWarps, kMaxParts, 4>;
  Exchange& exchange;
  int parts;
  unsigned round = 0;

  __device__ WarpSumPosts(Exchange& exchange_, int parts_) : exchange(exchange_), parts(parts_) {
    exchange.enter(parts);
  }
  // Posts this thread's two sums, added over its warp; returns the round to collect.
  __device__ unsigned post_sum2(float2 v) {
    exchange.send(dev::warp_sum2(v), round, parts, int(blockDim.x >> 5));
    return round++;
  }
  // The cluster's totals of a posted round, after at most one more round posted: each lane's share
  // of the slots, then a butterfly.
  __device__ float2 collect_sum2(unsigned posted) {
    const auto add2 = [](float2& sum, const float2& next) {
      sum.x += next.x;
      sum.y += next.y;
    };
    return dev::warp_sum2(
        exchange.receive_lane_share(posted, parts, int(blockDim.x >> 5), add2, make_float2(0.0f, 0.0f)));
  }
  __device__ void finish() const { exchange.leave(parts); }
};

}  // namespace nb::rows
