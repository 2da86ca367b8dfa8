#pragma once
// Barriers across CTAs of a cooperative launch (all CTAs resident by construction, so a CTA may
// wait for others). The grid's: an arrival counter and a generation word in device memory; the
// last CTA to arrive resets the counter and bumps the generation, the others wait for the bump.
// Reusable launch after launch. A team's: one counter per meeting, zeroed before the launch.
#include <cuda_runtime.h>

namespace nb::linear::dev {

struct GridBarrierState {
  unsigned arrived;
  unsigned generation;
};

__device__ __forceinline__ void grid_barrier(GridBarrierState* state) {
  __syncthreads();
  if (threadIdx.x == 0) {
    const unsigned total = gridDim.x * gridDim.y * gridDim.z;
    volatile unsigned* generation = &state->generation;
    const unsigned seen = *generation;
    __threadfence();  // this CTA's writes are visible before it arrives
    if (atomicAdd(&state->arrived, 1u) == total - 1) {
      atomicExch(&state->arrived, 0u);
      __threadfence();
      atomicAdd(&state->generation, 1u);
    } else {
      while (*generation == seen) __nanosleep(64);
    }
    __threadfence();
  }
  __syncthreads();
}

// One thread of each of `team` CTAs: this CTA's earlier writes (its other threads' too, when they
// met this thread at a CTA barrier just before) are published, and it returns once all `team`
// CTAs have arrived at *count (zero before the first arrival), their writes visible to it. (No
// give-up trap as mbarrier_wait has: in the Hopper GEMM's epilogue one made ptxas spill 1 KB.)
__device__ __forceinline__ void team_arrive_and_wait(unsigned* count, unsigned team) {
  __threadfence();
  atomicAdd(count, 1u);
  volatile unsigned* seen = count;
  while (*seen < team) __nanosleep(32);
  __threadfence();
}

}  // namespace nb::linear::dev
