#pragma once
// Whether pointers allow 16-byte (float4) accesses; host launch code and kernels both ask.
#include <cuda_runtime.h>

namespace nb::dev {

__host__ __device__ inline bool aligned16(const void* p) {
  return (reinterpret_cast<unsigned long long>(p) & 15) == 0;
}

__host__ __device__ inline bool aligned16(const void* a, const void* b) {
  return ((reinterpret_cast<unsigned long long>(a) | reinterpret_cast<unsigned long long>(b)) & 15) == 0;
}

}  // namespace nb::dev
