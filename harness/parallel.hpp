#pragma once
// parallel_for over [0, n) in contiguous chunks on all hardware threads: the float64
// references and the comparisons of multi-GB tensors use it.
#include <cstdint>
#include <functional>

namespace nb {

// Calls body(begin, end) for disjoint chunks covering [0, n). Exceptions propagate.
void parallel_for(std::int64_t n, const std::function<void(std::int64_t, std::int64_t)>& body,
                  std::int64_t min_chunk = 4096);

int worker_threads();

}  // namespace nb
