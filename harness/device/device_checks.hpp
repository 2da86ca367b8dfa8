#pragma once
// Device-side helpers of validation: write the poison pattern into an output, and hash an
// input where it lives (a multi-GB tensor is never copied back just to see it is unchanged).
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "harness/device_buffer.hpp"

namespace nb {

// Fills `bytes` (a multiple of 4) with kPoisonBits, or with kNarrowPoisonBits in each 2-byte
// half for a bf16 or fp16 tensor.
void poison_async(void* data, std::size_t bytes, cudaStream_t stream, bool narrow = false);

// An order-independent hash of a buffer's bytes: sum over 8-byte words of mix(word, index).
// Any change to any word changes it with overwhelming probability.
class DeviceHasher {
 public:
  DeviceHasher();
  std::uint64_t hash(const void* data, std::size_t bytes, cudaStream_t stream);

 private:
  DeviceBuffer accumulator_;
};

// The same hash on the host, for tests that cross-check the device.
std::uint64_t host_hash(const void* data, std::size_t bytes);

}  // namespace nb
