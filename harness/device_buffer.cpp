#include "harness/device_buffer.hpp"

#include <utility>

#include "harness/cuda_check.hpp"

namespace nb {

DeviceBuffer::DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
  // A zero-byte tensor still gets a distinct valid pointer, so launches never see null.
  NB_CUDA_CHECK(cudaMalloc(&ptr_, bytes == 0 ? 256 : bytes));
}

DeviceBuffer DeviceBuffer::borrow(void* ptr, std::size_t bytes) {
  DeviceBuffer view;
  view.ptr_ = ptr;
  view.bytes_ = bytes;
  view.owned_ = false;
  return view;
}

DeviceBuffer::~DeviceBuffer() {
  if (ptr_ && owned_) cudaFree(ptr_);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : ptr_(std::exchange(other.ptr_, nullptr)),
      bytes_(std::exchange(other.bytes_, 0)),
      owned_(std::exchange(other.owned_, true)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    if (ptr_ && owned_) cudaFree(ptr_);
    ptr_ = std::exchange(other.ptr_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
    owned_ = std::exchange(other.owned_, true);
  }
  return *this;
}

}  // namespace nb
