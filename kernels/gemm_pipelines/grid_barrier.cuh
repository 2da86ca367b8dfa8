#pragma once
// A barrier across every CTA of a cooperative launch (all CTAs resident by construction): an
// arrival counter and a generation word in device memory; the last CTA to arrive resets the
// counter and bumps the generation, the others wait for the bump. Reusable launch after launch.
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

}  // namespace nb::linear::dev
