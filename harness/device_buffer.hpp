#pragma once
// Owning device memory (RAII) and the set of device tensors a variant launches on.
#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

namespace nb {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes);
  // A view of memory someone else owns (never freed here): a tensor list with one slot swapped.
  static DeviceBuffer borrow(void* ptr, std::size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* get() const { return ptr_; }
  std::size_t bytes() const { return bytes_; }
  template <class T> T* as() const { return static_cast<T*>(ptr_); }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
  bool owned_ = true;
};

// The problem's tensors on the device, in declaration order.
class DeviceTensors {
 public:
  std::vector<DeviceBuffer> buffers;

  template <class T> T* ptr(int i) const { return buffers.at(static_cast<std::size_t>(i)).as<T>(); }
  const float* in(int i) const { return ptr<const float>(i); }
  float* out(int i) const { return ptr<float>(i); }
};

}  // namespace nb
