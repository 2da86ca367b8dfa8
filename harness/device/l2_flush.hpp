#pragma once
// Evicts the L2 before a timed sample by writing a buffer twice the L2's size on the timed
// stream, outside the events, so every sample starts with its inputs in DRAM.
#include <cuda_runtime.h>

#include <cstddef>

#include "harness/device_buffer.hpp"

namespace nb {

class L2Flusher {
 public:
  explicit L2Flusher(std::size_t l2_bytes);
  void flush(cudaStream_t stream);
  std::size_t bytes() const { return buffer_.bytes(); }

 private:
  DeviceBuffer buffer_;
  int value_ = 0;
};

}  // namespace nb
