#pragma once
// The textbook shared-memory tree: every thread writes its value, halves fold onto the lower
// half until one remains. Kept for the smem variants; the others use warp shuffles.
#include <cuda_runtime.h>

namespace nb::bn::dev {

// THREADS (a power of two) == blockDim.x; tree holds THREADS floats. Every thread gets the sum.
template <int THREADS>
__device__ __forceinline__ float tree_sum(float v, float* tree) {
  tree[threadIdx.x] = v;
  __syncthreads();
#pragma unroll
  for (int half = THREADS / 2; half > 0; half >>= 1) {
    if (threadIdx.x < half) tree[threadIdx.x] += tree[threadIdx.x + half];
    __syncthreads();
  }
  const float total = tree[0];
  __syncthreads();
  return total;
}

}  // namespace nb::bn::dev
