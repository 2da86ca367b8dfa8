#pragma once
// The SMs of the current device, asked once per process (a run uses one device): the size of a
// persistent grid, or whether a tiling fills the GPU.
#include <cuda_runtime.h>

#include "harness/cuda_check.hpp"

namespace nb {

inline int device_sm_count() {
  static const int sms = [] {
    int device = 0, count = 0;
    NB_CUDA_CHECK(cudaGetDevice(&device));
    NB_CUDA_CHECK(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
    return count;
  }();
  return sms;
}

}  // namespace nb
