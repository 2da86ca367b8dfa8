#pragma once
// An owned non-blocking CUDA stream: it neither waits for nor is waited on by the legacy default
// stream, so work a variant hides elsewhere is not silently ordered with the timed stream.
#include <cuda_runtime.h>

#include "harness/cuda_check.hpp"

namespace nb {

class CudaStream {
 public:
  CudaStream() { NB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~CudaStream() { cudaStreamDestroy(stream_); }
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;

  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

}  // namespace nb
