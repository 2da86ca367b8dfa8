#pragma once
// How the harness's own device kernels (the poison fill, the input hash, the timed-output check)
// cover a buffer: grid-stride loops of 256-thread blocks, as many blocks as the items need up to
// 4096 (at least one), and a warp's partial sums folded by shuffles.
#include <cstdint>

namespace nb {

inline constexpr int kGridStrideThreads = 256;

inline int grid_stride_blocks(std::int64_t items) {
  const std::int64_t blocks = (items + kGridStrideThreads - 1) / kGridStrideThreads;
  return static_cast<int>(blocks < 1 ? 1 : blocks > 4096 ? 4096 : blocks);
}

// The sum over the warp's 32 lanes, in lane 0; every lane must call it.
template <class T>
__device__ T warp_sum(T v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

}  // namespace nb
