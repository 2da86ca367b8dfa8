#pragma once
// A hardware barrier of part of a CTA (bar.sync with an id and a thread count): the warps that
// take part wait for each other and see each other's shared-memory writes made before it; the
// rest of the CTA runs on. Id 0 is __syncthreads'.
#include <cuda_runtime.h>

namespace nb::dev {

// Every warp of the `threads` (a multiple of 32) that meet on barrier `id` (1-15) calls it.
__device__ __forceinline__ void named_barrier_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

}  // namespace nb::dev
