#pragma once
// DeviceExecutor::each: f(i) for i in [0, n), one GPU thread per index in a grid-stride loop.
// f is a __host__ __device__ functor or extended lambda (nvcc --extended-lambda).
#include "harness/validation/device_executor.hpp"

namespace nb {

template <class F>
__global__ void each_index_kernel(std::int64_t n, F f) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) f(i);
}

template <class F>
void DeviceExecutor::each(std::int64_t n, F f) {
  if (n <= 0) return;
  constexpr int kBlock = 128;
  const std::int64_t blocks = (n + kBlock - 1) / kBlock;
  each_index_kernel<<<static_cast<unsigned>(blocks < 65536 ? blocks : 65536), kBlock, 0, stream_>>>(n, f);
  NB_CHECK_LAUNCH();
}

}  // namespace nb
