#include "harness/stream_ordered_buffer.hpp"

#include <cstdint>
#include <mutex>
#include <set>

#include "harness/cuda_check.hpp"

namespace nb {
namespace {

// The current device's pool keeps up to 64 MB of freed memory: with the default of none it goes
// back to the driver at every synchronisation, and the next allocation maps it again.
void keep_some_of_the_pool() {
  static std::mutex mutex;
  static std::set<int> done;
  int device = 0;
  NB_CUDA_CHECK(cudaGetDevice(&device));
  std::lock_guard<std::mutex> lock(mutex);
  if (!done.insert(device).second) return;
  cudaMemPool_t pool = nullptr;
  NB_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, device));
  std::uint64_t keep = std::uint64_t(64) << 20;
  NB_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
}

}  // namespace

std::shared_ptr<void> stream_ordered_buffer(std::size_t bytes, cudaStream_t stream) {
  keep_some_of_the_pool();
  void* ptr = nullptr;
  NB_CUDA_CHECK(cudaMallocAsync(&ptr, bytes == 0 ? 256 : bytes, stream));
  return std::shared_ptr<void>(ptr, [stream](void* p) { cudaFreeAsync(p, stream); });
}

}  // namespace nb
