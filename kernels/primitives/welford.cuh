#pragma once
// Welford's running mean and M2, merged with Chan et al.'s pairwise formula across threads,
// warps, blocks and the grid. Stable where sum / sum-of-squares cancels (offset data).
#include <cuda_runtime.h>

#include "kernels/primitives/merge.cuh"

namespace nb::dev {

struct Welford {
  float count = 0.0f;  // float: counts up to 2^24 exactly; merges keep it as a weight
  float mean = 0.0f;
  float m2 = 0.0f;     // sum of squared deviations from the mean

  __device__ __forceinline__ void add(float x) {
    count += 1.0f;
    const float delta = x - mean;
    mean += delta / count;
    m2 += delta * (x - mean);
  }

  // Chan's merge: combines two partial statistics exactly as if one had seen both sets.
  __device__ __forceinline__ void merge(const Welford& o) {
    if (o.count == 0.0f) return;
    if (count == 0.0f) {
      *this = o;
      return;
    }
    const float n = count + o.count;
    const float delta = o.mean - mean;
    const float w = o.count / n;
    mean += delta * w;
    m2 += o.m2 + delta * delta * count * w;
    count = n;
  }

  __device__ __forceinline__ float variance_biased() const { return count > 0.0f ? m2 / count : 0.0f; }
};

__device__ __forceinline__ Welford shfl_xor(const Welford& w, int offset) {
  Welford o;
  o.count = __shfl_xor_sync(0xffffffffu, w.count, offset);
  o.mean = __shfl_xor_sync(0xffffffffu, w.mean, offset);
  o.m2 = __shfl_xor_sync(0xffffffffu, w.m2, offset);
  return o;
}

}  // namespace nb::dev
