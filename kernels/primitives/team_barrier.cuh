#pragma once
// A barrier among a team of CTAs of a persistent cooperative grid (all CTAs co-resident, so the
// spinning cannot deadlock), in two halves: arrive (this CTA's partials are published) and wait
// (every teammate's are). Between them the CTA may issue loads that do not depend on the team.
// The arrival counter grows monotonically through a launch: wave w waits for team * (w + 1);
// the launcher zeroes it on the stream first.
#include <cuda/atomic>
#include <cuda_runtime.h>

namespace nb::dev {

__device__ inline void team_arrive(unsigned* arrivals) {
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    atomicAdd(arrivals, 1u);
  }
}

// An acquire load rather than a trailing fence: a fence would also wait for the loads issued
// between arrive and wait, which are meant to stay in flight.
__device__ inline void team_wait(unsigned* arrivals, unsigned target) {
  if (threadIdx.x == 0) {
    const cuda::atomic_ref<unsigned, cuda::thread_scope_device> count(*arrivals);
    while (count.load(cuda::memory_order_acquire) < target) __nanosleep(32);
  }
  __syncthreads();
}

}  // namespace nb::dev
