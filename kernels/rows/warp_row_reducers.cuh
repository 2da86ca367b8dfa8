#pragma once
// Row reductions over a cluster where every warp of every block pushes its own result (a
// WarpClusterExchange) and each warp folds ranks x warps slots across its lanes: the same bits in
// every thread of the cluster, and no block barrier before the round trip. row_reducers.cuh's
// ClusterReducerOn reduces over the block first (two barriers) and pushes one value a block.
//   WarpSumPosts         a row's two sums posted, collected a row later (four buffers)
//   WarpClusterReducer   sum, max and two sums, each received as sent (two buffers)
#include <cfloat>

#include <cuda_runtime.h>

#include "kernels/primitives/reduce.cuh"
#include "kernels/primitives/warp_cluster_exchange.cuh"
#include "kernels/rows/row_plan.hpp"

namespace nb::rows {
namespace warp_push {

__device__ __forceinline__ void add2(float2& sum, const float2& next) {
  sum.x += next.x;
  sum.y += next.y;
}

// The cluster's two sums of a round: each lane's share of the slots, then a butterfly.
template <class Exchange>
__device__ __forceinline__ float2 collect_sums(Exchange& exchange, unsigned round, int parts) {
  return dev::warp_sum2(
      exchange.receive_lane_share(round, parts, int(blockDim.x >> 5), add2, make_float2(0.0f, 0.0f)));
}

}  // namespace warp_push

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
  // The cluster's totals of a posted round, after at most one more round posted.
  __device__ float2 collect_sum2(unsigned posted) { return warp_push::collect_sums(exchange, posted, parts); }
  __device__ void finish() const { exchange.leave(parts); }
};

// ClusterReducer's interface for rows in 2 bytes (sum2 and the guard's sum and max; no Welford
// merge). One block (parts == 1) reduces over the block as BlockReducer does.
template <int kWarps>
struct WarpClusterReducer {
  static constexpr bool kClusters = true;
  using Exchange = dev::WarpClusterExchange<float2, kWarps, kMaxParts>;
  float* scratch;  // 32 floats of shared memory, for one block
  Exchange& exchange;
  int parts;
  unsigned round = 0;

  __device__ WarpClusterReducer(float* scratch_, Exchange& exchange_, int parts_)
      : scratch(scratch_), exchange(exchange_), parts(parts_) {
    exchange.enter(parts);
  }
  __device__ float2 sum2(float2 v) {
    if (parts == 1) return dev::block_sum2(v, scratch);
    exchange.send(dev::warp_sum2(v), round, parts, int(blockDim.x >> 5));
    return warp_push::collect_sums(exchange, round++, parts);
  }
  __device__ float sum(float v) {
    if (parts == 1) return dev::block_reduce(v, dev::SumOp{}, scratch);
    return sum2(make_float2(v, 0.0f)).x;
  }
  __device__ float max(float v) {
    if (parts == 1) return dev::block_reduce(v, dev::MaxOp{}, scratch);
    const float warp_max = dev::warp_reduce(v, dev::MaxOp{});
    exchange.send(make_float2(warp_max, 0.0f), round, parts, int(blockDim.x >> 5));
    const float2 share = exchange.receive_lane_share(
        round++, parts, int(blockDim.x >> 5), [](float2& m, const float2& next) { m.x = dev::MaxOp{}(m.x, next.x); },
        make_float2(-FLT_MAX, 0.0f));
    return dev::warp_reduce(share.x, dev::MaxOp{});
  }
  // The row's total is the same in every thread and every block of the cluster already.
  __device__ bool any(bool p) const { return p; }
  __device__ bool clustered() const { return parts > 1; }
  __device__ void finish() const { exchange.leave(parts); }
};

}  // namespace nb::rows
