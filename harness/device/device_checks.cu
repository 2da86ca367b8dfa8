// Poison fill: a grid-stride store of the NaN pattern. Input hash: each thread mixes its words
// with their index and the block adds its sum into one 64-bit accumulator. A buffer may start on
// any 2-byte boundary (Words).
#include "harness/device/device_checks.hpp"

#include <cstring>
#include <memory>
#include <stdexcept>

#include "harness/cuda_check.hpp"
#include "harness/stream_ordered_buffer.hpp"
#include "harness/device/grid_stride.cuh"
#include "harness/narrow_float.hpp"
#include "harness/stored_value.hpp"

namespace nb {
namespace {

__host__ __device__ inline std::uint64_t mix_word(std::uint64_t word, std::uint64_t index) {
  std::uint64_t x = word ^ (index * 0x9e3779b97f4a7c15ull);
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// The 32-bit words of a buffer that starts on any 2-byte boundary (a bf16 or fp16 tensor placed
// one element past an aligned one, --misaligned): whole words where it starts on 4 bytes, else two
// 16-bit halves a word, the same bits in the same order.
struct Words {
  void* data;
  bool halves;

  __device__ std::uint32_t load(std::size_t i) const {
    if (!halves) return static_cast<const std::uint32_t*>(data)[i];
    const auto* h = static_cast<const std::uint16_t*>(data);
    return std::uint32_t(h[2 * i]) | std::uint32_t(h[2 * i + 1]) << 16;
  }
  __device__ void store(std::size_t i, std::uint32_t w) const {
    if (!halves) {
      static_cast<std::uint32_t*>(data)[i] = w;
      return;
    }
    auto* h = static_cast<std::uint16_t*>(data);
    h[2 * i] = std::uint16_t(w), h[2 * i + 1] = std::uint16_t(w >> 16);
  }
};

Words words_at(const void* data) {
  const auto address = reinterpret_cast<std::uintptr_t>(data);
  if (address % 2 != 0) throw std::invalid_argument("device checks: a buffer at an odd address");
  return {const_cast<void*>(data), address % 4 != 0};
}

__global__ void poison_kernel(Words data, std::size_t words, std::uint32_t pattern) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < words;
       i += std::size_t(gridDim.x) * blockDim.x)
    data.store(i, pattern);
}

// Words are 8 bytes; a trailing 4-byte word (odd element count) is hashed zero-extended.
__global__ void hash_kernel(Words data, std::size_t words32, unsigned long long* out) {
  __shared__ unsigned long long block_sum;
  if (threadIdx.x == 0) block_sum = 0;
  __syncthreads();
  unsigned long long sum = 0;
  const std::size_t words64 = (words32 + 1) / 2;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < words64;
       i += std::size_t(gridDim.x) * blockDim.x) {
    std::uint64_t lo = data.load(2 * i), hi = 2 * i + 1 < words32 ? data.load(2 * i + 1) : 0u;
    sum += mix_word(lo | (hi << 32), i);
  }
  atomicAdd(&block_sum, sum);
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(out, block_sum);
}

}  // namespace

void poison_async(void* data, std::size_t bytes, cudaStream_t stream, bool narrow, int payload) {
  const std::size_t words = bytes / 4;
  const std::uint32_t half = stored::narrow_poison_bits(payload);
  const std::uint32_t pattern = narrow ? (half << 16 | half) : stored::poison_bits(payload);
  if (words == 0) return;
  poison_kernel<<<grid_stride_blocks(std::int64_t(words)), kGridStrideThreads, 0, stream>>>(words_at(data), words,
                                                                                              pattern);
  NB_CHECK_LAUNCH();
}

void scribble_async(void* data, std::size_t bytes, cudaStream_t stream, int payload) {
  if (!data || bytes == 0) return;
  const std::size_t words = bytes / 4, whole = words * 4;
  const std::uint32_t pattern = payload ? kScribbleFiniteBits : stored::kPoisonBits;
  if (words > 0) {
    poison_kernel<<<grid_stride_blocks(std::int64_t(words)), kGridStrideThreads, 0, stream>>>(words_at(data),
                                                                                                words, pattern);
    NB_CHECK_LAUNCH();
  }
  if (whole < bytes)
    NB_CUDA_CHECK(cudaMemsetAsync(static_cast<char*>(data) + whole, int(pattern & 0xff), bytes - whole, stream));
}

std::vector<std::uint64_t> device_hashes(const std::vector<HashedBytes>& buffers, cudaStream_t stream) {
  if (buffers.empty()) return {};
  std::vector<unsigned long long> sums(buffers.size());
  const std::size_t bytes = sums.size() * sizeof(unsigned long long);
  const std::shared_ptr<void> accumulators = stream_ordered_buffer(bytes, stream);
  auto* acc = static_cast<unsigned long long*>(accumulators.get());
  NB_CUDA_CHECK(cudaMemsetAsync(acc, 0, bytes, stream));
  for (std::size_t b = 0; b < buffers.size(); ++b) {
    const std::size_t words32 = buffers[b].bytes / 4;
    const std::int64_t words64 = std::int64_t(words32 + 1) / 2;
    hash_kernel<<<grid_stride_blocks(words64), kGridStrideThreads, 0, stream>>>(words_at(buffers[b].data), words32,
                                                                                acc + b);
    NB_CHECK_LAUNCH();
  }
  NB_CUDA_CHECK(cudaMemcpyAsync(sums.data(), acc, bytes, cudaMemcpyDeviceToHost, stream));
  NB_CUDA_CHECK(cudaStreamSynchronize(stream));
  return {sums.begin(), sums.end()};
}

std::uint64_t host_hash(const void* data, std::size_t bytes) {
  const std::size_t words32 = bytes / 4;
  const auto* w = static_cast<const std::uint32_t*>(data);
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < (words32 + 1) / 2; ++i) {
    std::uint64_t lo = w[2 * i], hi = 2 * i + 1 < words32 ? w[2 * i + 1] : 0u;
    sum += mix_word(lo | (hi << 32), i);
  }
  return sum;
}

}  // namespace nb
