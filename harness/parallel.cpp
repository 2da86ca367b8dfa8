#include "harness/parallel.hpp"

#include <algorithm>
#include <exception>
#include <thread>
#include <vector>

namespace nb {

int worker_threads() {
  unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

void parallel_for(std::int64_t n, const std::function<void(std::int64_t, std::int64_t)>& body,
                  std::int64_t min_chunk) {
  if (n <= 0) return;
  std::int64_t threads = std::min<std::int64_t>(worker_threads(), (n + min_chunk - 1) / min_chunk);
  if (threads <= 1) {
    body(0, n);
    return;
  }
  std::vector<std::thread> pool;
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(threads));
  std::int64_t chunk = (n + threads - 1) / threads;
  for (std::int64_t t = 0; t < threads; ++t) {
    std::int64_t begin = t * chunk, end = std::min(n, begin + chunk);
    if (begin >= end) break;
    pool.emplace_back([&, t, begin, end] {
      try {
        body(begin, end);
      } catch (...) {
        errors[static_cast<std::size_t>(t)] = std::current_exception();
      }
    });
  }
  for (auto& th : pool) th.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace nb
