// parallel_for on the process's kept threads: every index once, in the same contiguous chunks as
// before, from any thread and from inside another parallel_for, with the body's exceptions
// brought back to the caller.
#include "harness/parallel.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

namespace nb {
namespace {

TEST(ParallelFor, CoversEveryIndexOnceInContiguousChunks) {
  for (std::int64_t n : {1, 7, 4096, 4097, 100000, 1000003}) {
    std::vector<std::atomic<int>> hits(static_cast<std::size_t>(n));
    std::mutex m;
    std::set<std::pair<std::int64_t, std::int64_t>> chunks;
    parallel_for(n, [&](std::int64_t b, std::int64_t e) {
      for (std::int64_t i = b; i < e; ++i) hits[std::size_t(i)]++;
      std::lock_guard<std::mutex> lock(m);
      chunks.insert({b, e});
    });
    for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(hits[std::size_t(i)].load(), 1) << "n " << n << " index " << i;
    const std::int64_t parts = std::min<std::int64_t>(worker_threads(), (n + 4095) / 4096);
    const std::int64_t chunk = (n + parts - 1) / parts;
    std::int64_t expect = 0;
    for (const auto& [b, e] : chunks) {
      EXPECT_EQ(b, expect) << "n " << n;
      EXPECT_EQ(e, std::min(n, b + chunk)) << "n " << n;
      expect = e;
    }
    EXPECT_EQ(expect, n);
  }
}

TEST(ParallelFor, NestedAndConcurrentCallsFinish) {
  std::atomic<std::int64_t> total{0};
  const auto inner = [&] {
    parallel_for(64, [&](std::int64_t b, std::int64_t e) {
      parallel_for(10000, [&](std::int64_t b2, std::int64_t e2) { total += e2 - b2; });
      (void)b, (void)e;
    }, 1);
  };
  std::vector<std::thread> callers;
  for (int t = 0; t < 4; ++t) callers.emplace_back(inner);
  for (std::thread& t : callers) t.join();
  const std::int64_t parts = std::min<std::int64_t>(worker_threads(), 64);
  EXPECT_EQ(total.load(), 4 * parts * 10000) << "every outer chunk ran its own inner loop whole";
}

TEST(ParallelFor, ABodysExceptionReachesTheCaller) {
  EXPECT_THROW(parallel_for(100000, [](std::int64_t b, std::int64_t) {
                 if (b == 0) throw std::runtime_error("chunk 0");
               }),
               std::runtime_error);
  std::atomic<std::int64_t> after{0};
  parallel_for(100000, [&](std::int64_t b, std::int64_t e) { after += e - b; });
  EXPECT_EQ(after.load(), 100000) << "the threads serve the next call";
}

}  // namespace
}  // namespace nb
