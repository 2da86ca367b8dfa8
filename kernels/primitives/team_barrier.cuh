#pragma once
// A barrier among a team of CTAs of a persistent cooperative grid (all CTAs co-resident, so the
// spinning cannot deadlock), in two halves: arrive (this CTA's partials are published) and wait
// (every teammate's are). Between them the CTA may issue loads that do not depend on the team.
// The arrival counter grows monotonically through a launch: wave w waits for team * (w + 1);
// the launcher zeroes it on the stream first.
#include <cuda/atomic>
#include <cuda_runtime.h>

namespace nb::dev {

// The halves as one thread does them. team_signal: the thread's earlier writes (and, through a
// CTA barrier just before, its CTA's) are published, then the count goes up. team_await: returns
// once the count reaches target, the writes published before it visible. An acquire load rather
// than a trailing fence: a fence would also wait for the loads issued between the halves, which
// are meant to stay in flight.
__device__ __forceinline__ void team_signal(unsigned* count) {
  __threadfence();
  atomicAdd(count, 1u);
}
__device__ __forceinline__ void team_await(unsigned* count, unsigned target) {
  const cuda::atomic_ref<unsigned, cuda::thread_scope_device> seen(*count);
  while (seen.load(cuda::memory_order_acquire) < target) __nanosleep(32);
}

__device__ inline void team_arrive(unsigned* arrivals) {
  __syncthreads();
  if (threadIdx.x == 0) team_signal(arrivals);
}

__device__ inline void team_wait(unsigned* arrivals, unsigned target) {
  if (threadIdx.x == 0) team_await(arrivals, target);
  __syncthreads();
}

// A team barrier for a pipeline that arrives at wave w + 1 before it waits for wave w (the wait
// lags a wave behind, so that teammates may drift apart by a wave without waiting). One counter
// can no longer tell the waves apart (a fast CTA's arrival at w + 1 would count for w), so
// arrivals go to two counters by wave parity: a count that reaches wave w's target holds only once
// every CTA arrived at w, since no CTA arrives at w + 2 before it has waited for w. One warp of
// the CTA keeps the barrier: arrive() is one thread's, after that thread itself wrote what it
// publishes (no block barrier, so the other warps go on while its fence waits for the write), and
// wait_warp() returns to every lane of the warp once the team has arrived. The launcher zeroes both
// counters first.
struct LaggedTeamBarrier {
  unsigned* counters;  // two, by wave parity
  unsigned team;       // CTAs that arrive at every wave

  __device__ __forceinline__ void arrive(unsigned wave) const { team_signal(counters + (wave & 1u)); }
  __device__ __forceinline__ void wait_warp(unsigned wave) const {
    team_await(counters + (wave & 1u), team * (wave / 2u + 1u));
  }
};

}  // namespace nb::dev
