#pragma once
// GroupNorm's statistics of one group by one warp: lanes stride the group's values, mean first,
// then the sum of squared deviations (two passes, no cancellation), returned as {mean, invstd}.
#include <cuda_runtime.h>

#include "kernels/primitives/reduce.cuh"
#include "kernels/primitives/storage.cuh"

namespace nb::linear::dev {

// v fp32, or a bf16 problem's bf16 (widened as it is read).
template <class In>
__device__ __forceinline__ float2 warp_group_moments(const In* v, int size, float eps) {
  const int lane = threadIdx.x & 31;
  float sum = 0.0f;
  for (int i = lane; i < size; i += 32) sum += nb::dev::to_float(v[i]);
  const float mean = nb::dev::warp_sum(sum) / float(size);
  float m2 = 0.0f;
  for (int i = lane; i < size; i += 32) {
    const float d = nb::dev::to_float(v[i]) - mean;
    m2 = fmaf(d, d, m2);
  }
  return make_float2(mean, rsqrtf(nb::dev::warp_sum(m2) / float(size) + eps));
}

}  // namespace nb::linear::dev
