#include "harness/device/l2_flush.hpp"

#include "harness/cuda_check.hpp"

namespace nb {

L2Flusher::L2Flusher(std::size_t l2_bytes) : buffer_(2 * (l2_bytes ? l2_bytes : (64u << 20))) {}

void L2Flusher::flush(cudaStream_t stream) {
  value_ = (value_ + 1) & 0xff;  // a new value each time: no write can be elided
  NB_CUDA_CHECK(cudaMemsetAsync(buffer_.get(), value_, buffer_.bytes(), stream));
}

}  // namespace nb
