#pragma once
// The executor of float64 reference programs on the GPU (harness/validation/executor.hpp): each
// `each` is one launch of a grid-stride kernel on the validation stream, scratch is device memory,
// the GEMM is cuBLAS DGEMM. `each` itself is in device_executor.cuh, for the .cu files that
// instantiate programs; this header is enough to hold and pass an executor.
#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "harness/cuda_check.hpp"
#include "harness/stream_ordered_buffer.hpp"
#include "harness/validation/executor.hpp"

namespace nb {

class DeviceExecutor {
 public:
  explicit DeviceExecutor(cudaStream_t stream) : stream_(stream) {}
  cudaStream_t stream() const { return stream_; }

  template <class F>
  void each(std::int64_t n, F f);  // device_executor.cuh

  // n zeroed elements of device memory from the stream-ordered pool, given back in the stream's
  // order with the last copy of the handle (stream_ordered_buffer: no device-wide wait as cudaFree
  // has, around every validated launch's comparison). No handle may outlive the stream.
  template <class T>
  Scratch<T> scratch(std::int64_t n) {
    const std::size_t bytes = static_cast<std::size_t>(n > 0 ? n : 1) * sizeof(T);
    std::shared_ptr<void> owner = stream_ordered_buffer(bytes, stream_);
    NB_CUDA_CHECK(cudaMemsetAsync(owner.get(), 0, bytes, stream_));
    return Scratch<T>(owner, static_cast<T*>(owner.get()));
  }

  // n elements copied to the host once the stream has reached them.
  template <class T>
  std::vector<T> to_host(const T* data, std::int64_t n) {
    std::vector<T> out(static_cast<std::size_t>(n));
    if (n > 0) NB_CUDA_CHECK(cudaMemcpyAsync(out.data(), data, out.size() * sizeof(T), cudaMemcpyDeviceToHost, stream_));
    NB_CUDA_CHECK(cudaStreamSynchronize(stream_));
    return out;
  }

  // n elements from the host, in stream order (the source must outlive the copy: the stream is
  // synchronised before returning).
  template <class T>
  void upload(const T* host, T* device, std::int64_t n) {
    if (n > 0) NB_CUDA_CHECK(cudaMemcpyAsync(device, host, std::size_t(n) * sizeof(T), cudaMemcpyHostToDevice, stream_));
    NB_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  // The same two copies without waiting: `host` must be page-locked (else the copy is not
  // asynchronous) and stay valid, and the device side alive, until the stream has passed them.
  template <class T>
  void to_host_async(const T* data, std::int64_t n, T* host) {
    if (n > 0) NB_CUDA_CHECK(cudaMemcpyAsync(host, data, std::size_t(n) * sizeof(T), cudaMemcpyDeviceToHost, stream_));
  }
  template <class T>
  void upload_async(const T* host, T* device, std::int64_t n) {
    if (n > 0) NB_CUDA_CHECK(cudaMemcpyAsync(device, host, std::size_t(n) * sizeof(T), cudaMemcpyHostToDevice, stream_));
  }
  // A wait, callable from any thread, for everything the stream holds now (an event recorded
  // here): what the asynchronous copies enqueued so far have landed once it returns.
  std::function<void()> arrival();

  // cuBLAS DGEMM on the stream (the H100 runs FP64 on its tensor cores).
  void gemm(const GemmShape& shape, const double* a, const double* b, double* c);

 private:
  cudaStream_t stream_;
};

}  // namespace nb
