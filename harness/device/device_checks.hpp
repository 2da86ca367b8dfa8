#pragma once
// Device-side helpers of validation: write the poison pattern into an output, and hash an
// input where it lives (a multi-GB tensor is never copied back just to see it is unchanged).
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <vector>


namespace nb {

// Buffers start on any even address (a misaligned bf16 tensor: harness/run/problem_buffers.hpp).
// Fills `bytes` (a multiple of 4) with the poison pattern of `payload` (stored::poison_bits), or
// with its 2-byte pattern in each half for a bf16 or fp16 tensor.
void poison_async(void* data, std::size_t bytes, cudaStream_t stream, bool narrow = false, int payload = 0);

// Fills a variant's workspace (any size) with a word pattern, its last 0-3 bytes with a byte of
// it: payload 0 the fp32 poison (a NaN), payload 1 kScribbleFiniteBits (1.5e16 as a float, a huge
// integer as any integer type). Scratch that a kernel reads before it writes holds a NaN in one
// trial and a huge finite value in the next, never zeros: a NaN-ignoring read (fmaxf) does not
// hide it.
inline constexpr std::uint32_t kScribbleFiniteBits = 0x5a5a5a5au;
void scribble_async(void* data, std::size_t bytes, cudaStream_t stream, int payload);

// An order-independent hash of a buffer's bytes: sum over 8-byte words of mix(word, index).
// Any change to any word changes it with overwhelming probability.
struct HashedBytes {
  const void* data;
  std::size_t bytes;
};
// The hashes of several buffers at one wait for the stream: the validation hashes the inputs around
// every launch, so their accumulators share one allocation (from the stream-ordered pool) and one
// copy back.
std::vector<std::uint64_t> device_hashes(const std::vector<HashedBytes>& buffers, cudaStream_t stream);
inline std::uint64_t device_hash(const void* data, std::size_t bytes, cudaStream_t stream) {
  return device_hashes({{data, bytes}}, stream).front();
}

// The same hash on the host, for tests that cross-check the device.
std::uint64_t host_hash(const void* data, std::size_t bytes);

}  // namespace nb
