#pragma once
// A kernel's opt-in to more than 48 KB of dynamic shared memory, made once per kernel and size for
// the process: launches inside timed regions do not pay a cudaFuncSetAttribute call each.
#include <cuda_runtime.h>

#include "harness/cuda_check.hpp"

namespace nb {

template <auto kKernel, int kBytes>
void allow_dynamic_smem() {
  static const bool done = [] {
    NB_CUDA_CHECK(cudaFuncSetAttribute(kKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kBytes));
    return true;
  }();
  (void)done;
}

}  // namespace nb
