#pragma once
// A thread-block cluster's total of one value from every warp of every CTA, with no CTA barrier in
// front of it: each warp pushes its own value into every CTA's shared memory (st.async, its bytes
// completing on the receiving CTA's mbarrier), and each CTA's warps wait on their own barrier and
// fold the ranks' x warps' values across lanes. ClusterExchange instead has the CTA's warps meet on
// a barrier and one warp add and push the CTA's value, a barrier and a fold more on the round trip.
//
// Rounds go on kBuffers buffers in turn, with no barrier asked of the caller. With two, a warp
// pushes round r + 2 only after its wait for round r + 1 returned, which took every warp of every
// CTA's push of round r + 1, and each warp pushes r + 1 after it has read round r. So every value of
// round r has been read everywhere before any push of round r + 2 lands on its slot. With four, a
// warp may push one round ahead of the last it received (push r + 1, then receive r): it pushes
// round r + 4 after receiving r + 2, which every warp pushed after receiving r.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "kernels/primitives/cluster_exchange.cuh"
#include "kernels/primitives/mbarrier.cuh"

namespace nb::dev {

// In shared memory, one per CTA; blockDim.x a multiple of 32. A round takes `warps` warps a CTA
// (the same in every CTA, at most kWarps) from `ranks` CTAs (at most kMaxRanks), one slot of V a
// (sending rank, warp), laid out densely: rank * warps + warp.
template <class V, int kWarps, int kMaxRanks, int kBuffers = 2>
struct WarpClusterExchange {
  static_assert(std::is_trivially_copyable_v<V>, "a pushed value is trivially copyable");
  static_assert(kWarps > 0 && kWarps <= 32, "kWarps: up to 32");
  static_assert(kBuffers == 2 || kBuffers == 4, "two buffers, or four for a round pushed ahead");
  alignas(16) V slots[kBuffers][kMaxRanks * kWarps];  // [buffer][sending rank * warps + warp]
  std::uint64_t arrived[kBuffers];

  // Once, by every thread of the CTA before any round: the barriers, each taking one arrival a
  // phase (thread 0's, announcing the round's bytes), where every CTA sees them.
  __device__ void enter(int ranks) {
    if (ranks == 1) return;
    if (threadIdx.x == 0) {
#pragma unroll
      for (int b = 0; b < kBuffers; ++b) mbarrier_init(&arrived[b], 1);
      fence_barrier_init();
    }
    cooperative_groups::this_cluster().sync();
  }

  // Every lane of each of the round's `warps` warps (warps 0..warps - 1 of the CTA; thread 0 among
  // them), `mine` the warp's value in its lanes below `ranks` at least: lane r pushes it to rank r.
  __device__ void send(const V& mine, unsigned round, int ranks, int warps) {
    const unsigned buffer = round % kBuffers, lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    if (threadIdx.x == 0)
      mbarrier_arrive_expect_bytes(&arrived[buffer], unsigned(ranks) * unsigned(warps) * unsigned(sizeof(V)));
    if (lane < unsigned(ranks)) {
      const unsigned me = cooperative_groups::this_cluster().block_rank();
      push_value(cluster_address(&slots[buffer][me * unsigned(warps) + warp], lane), mine,
                 cluster_address(&arrived[buffer], lane));
    }
  }

  // Every lane of a warp: waits for the round's every value, and returns this lane's share of them,
  // slots lane, lane + 32, ... below ranks x warps, merged in that order, merge(acc, next), from
  // `identity` where the lane has none. The caller folds the shares across the warp's lanes; with a
  // commutative merge and a butterfly every lane of every CTA gets the same bits.
  template <class Merge>
  __device__ V receive_lane_share(unsigned round, int ranks, int warps, Merge merge, const V& identity) {
    const unsigned buffer = round % kBuffers;
    mbarrier_wait(&arrived[buffer], (round / kBuffers) & 1u);
    const int lane = int(threadIdx.x & 31u), used = ranks * warps;
    V share = lane < used ? slots[buffer][lane] : identity;
#pragma unroll
    for (int j = 32; j < kMaxRanks * kWarps; j += 32)
      if (lane + j < used) merge(share, slots[buffer][lane + j]);
    return share;
  }

  // No CTA exits while a peer's push of the last round may still be on its way to it.
  __device__ void leave(int ranks) const {
    if (ranks > 1) cooperative_groups::this_cluster().sync();
  }
};

}  // namespace nb::dev
