#include "harness/host_memory.hpp"

#include <cuda_runtime.h>
#include <sys/mman.h>

#include <cstdint>

namespace nb {
namespace {

constexpr std::size_t kHugePage = std::size_t(2) << 20;

void advise_huge_pages(void* data, std::size_t bytes) {
  const auto begin = (reinterpret_cast<std::uintptr_t>(data) + kHugePage - 1) & ~(kHugePage - 1);
  const auto end = (reinterpret_cast<std::uintptr_t>(data) + bytes) & ~(kHugePage - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

}  // namespace

template <class T>
void resize_on_huge_pages(std::vector<T>& v, std::size_t n) {
  if (n * sizeof(T) >= 4 * kHugePage && v.capacity() < n) {
    std::vector<T>().swap(v);
    v.reserve(n);
    advise_huge_pages(v.data(), n * sizeof(T));
  }
  v.resize(n);
}

template void resize_on_huge_pages<float>(std::vector<float>&, std::size_t);
template void resize_on_huge_pages<double>(std::vector<double>&, std::size_t);

PinnedRanges::~PinnedRanges() {
  for (void* p : pinned_) cudaHostUnregister(p);
}

void PinnedRanges::pin(void* data, std::size_t bytes) {
  if (!data || bytes < (std::size_t(64) << 20)) return;  // small copies gain nothing
  if (cudaHostRegister(data, bytes, cudaHostRegisterDefault) == cudaSuccess)
    pinned_.push_back(data);
  else
    cudaGetLastError();  // not fatal: the copy stays pageable
}

}  // namespace nb
