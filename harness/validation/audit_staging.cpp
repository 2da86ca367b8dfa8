#include "harness/validation/audit_staging.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdlib>
#include <new>

#include "harness/cuda_check.hpp"

namespace nb {
namespace {

constexpr std::size_t kAlignment = 256;
constexpr std::size_t kFirstBlock = std::size_t(1) << 20;
constexpr std::size_t kMostGrowth = std::size_t(64) << 20;

std::size_t aligned(std::size_t bytes) { return (bytes + kAlignment - 1) / kAlignment * kAlignment; }

}  // namespace

AuditStaging::AuditStaging(bool pinned) : pinned_(pinned) {}

AuditStaging::~AuditStaging() {
  // A trial whose staging failed half way may leave copies in flight into this memory.
  if (pinned_ && !kept_.empty()) cudaDeviceSynchronize();
  kept_.clear();
  for (Block& b : blocks_) release(b);
}

AuditStaging::Block AuditStaging::allocate(std::size_t bytes) const {
  Block b;
  b.bytes = bytes;
  if (pinned_) {
    NB_CUDA_CHECK(cudaHostAlloc(&b.data, bytes, cudaHostAllocDefault));
  } else {
    b.data = std::aligned_alloc(kAlignment, bytes);
    if (!b.data) throw std::bad_alloc();
  }
  return b;
}

void AuditStaging::release(Block& b) const {
  if (!b.data) return;
  if (pinned_) cudaFreeHost(b.data);
  else std::free(b.data);
  b.data = nullptr;
}

void* AuditStaging::take(std::size_t bytes) {
  bytes = aligned(bytes);
  if (blocks_.empty() || blocks_.back().bytes - blocks_.back().used < bytes) {
    // Doubling, but by 64 MB at most: a trial that took one large piece does not pin twice as much.
    const std::size_t last = blocks_.empty() ? kFirstBlock / 2 : blocks_.back().bytes;
    blocks_.push_back(allocate(std::max(bytes, std::min(2 * last, kMostGrowth))));
  }
  Block& b = blocks_.back();
  void* p = static_cast<char*>(b.data) + b.used;
  b.used += bytes;
  return p;
}

void AuditStaging::recycle() {
  kept_.clear();
  // A trial that needed several blocks gets one the size of what it took: the next trial, which
  // takes as much, fits in it.
  if (blocks_.size() > 1) {
    std::size_t used = 0;
    for (Block& b : blocks_) used += b.used, release(b);
    blocks_.clear();
    blocks_.push_back(allocate(std::max(used, kFirstBlock)));
  }
  for (Block& b : blocks_) b.used = 0;
}

std::size_t AuditStaging::capacity_bytes() const {
  std::size_t total = 0;
  for (const Block& b : blocks_) total += b.bytes;
  return total;
}

}  // namespace nb
