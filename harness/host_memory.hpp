#pragma once
// Multi-GB host tensors: sized on transparent huge pages (a 4 KB page fault per 4 KB costs
// seconds per GB in a VM), and page-locked while a problem is validated so that copies to and
// from the device run at DMA speed instead of through the driver's staging buffers.
#include <cstddef>
#include <vector>

namespace nb {

// Resizes v to n elements, asking for huge pages first when the buffer is large.
template <class T>
void resize_on_huge_pages(std::vector<T>& v, std::size_t n);

// Page-locks host ranges for the lifetime of the object; a range the driver refuses to lock
// stays pageable (slower copies, same results).
class PinnedRanges {
 public:
  PinnedRanges() = default;
  ~PinnedRanges();
  PinnedRanges(const PinnedRanges&) = delete;
  PinnedRanges& operator=(const PinnedRanges&) = delete;

  void pin(void* data, std::size_t bytes);

 private:
  std::vector<void*> pinned_;
};

}  // namespace nb
