#pragma once
// Warp- and block-wide merges of per-thread partial statistics (Welford, the online max-and-sum,
// sum and sum of squares): any S with S::merge(const S&) and a shfl_xor(const S&, int) that
// argument-dependent lookup finds next to S. Every thread gets the merged result.
#include <cuda_runtime.h>

namespace nb::dev {

template <class S>
__device__ __forceinline__ S warp_merge(S s) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) s.merge(shfl_xor(s, offset));
  return s;
}

// blockDim.x a multiple of 32; scratch holds 32 S in shared memory, reusable after the call.
template <class S>
__device__ __forceinline__ S block_merge(S s, S* scratch) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  s = warp_merge(s);
  if (lane == 0) scratch[warp] = s;
  __syncthreads();
  s = lane < warps ? scratch[lane] : S{};
  s = warp_merge(s);
  __syncthreads();
  return s;
}

}  // namespace nb::dev
