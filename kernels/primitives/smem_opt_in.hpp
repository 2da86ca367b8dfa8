#pragma once
// A kernel's opt-in to more than 48 KB of dynamic shared memory, made once per kernel and size for
// the process: launches inside timed regions do not pay a cudaFuncSetAttribute call each.
#include <cuda_runtime.h>

#include "harness/cuda_check.hpp"
#include "harness/errors.hpp"

namespace nb {

template <auto kKernel, int kBytes>
void allow_dynamic_smem() {
  static const bool done = [] {
    NB_CUDA_CHECK(cudaFuncSetAttribute(kKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kBytes));
    return true;
  }();
  (void)done;
}

// Whether the device grants kKernel kBytes of dynamic shared memory: the opt-in above, false where
// it is refused (the caller takes another path). Asked once per kernel and size, as the opt-in is:
// a refusal is not thrown and caught again inside each timed launch.
template <auto kKernel, int kBytes>
bool dynamic_smem_allowed() {
  static const bool allowed = [] {
    try {
      allow_dynamic_smem<kKernel, kBytes>();
      return true;
    } catch (const DeviceError&) {
      return false;
    }
  }();
  return allowed;
}

}  // namespace nb
