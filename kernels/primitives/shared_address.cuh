#pragma once
// The 32-bit shared-state-space address of a generic pointer into shared memory: what the PTX of
// cp.async, mbarriers and st.async take.
#include <cuda_runtime.h>

#include <cstdint>

namespace nb::dev {

__device__ __forceinline__ std::uint32_t shared_address(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

}  // namespace nb::dev
