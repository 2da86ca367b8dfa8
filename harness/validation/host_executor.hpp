#pragma once
// The executor of float64 reference programs on the host (harness/validation/executor.hpp): the
// functors a program hands the device run here across the host's cores, for the CPU tests.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

#include "harness/parallel.hpp"
#include "harness/validation/executor.hpp"

namespace nb {

class HostExecutor {
 public:
  template <class F>
  void each(std::int64_t n, F f) {
    parallel_for(n, [&](std::int64_t b, std::int64_t e) {
      for (std::int64_t i = b; i < e; ++i) f(i);
    }, 1);
  }

  template <class T>
  Scratch<T> scratch(std::int64_t n) {
    auto owner = std::make_shared<std::vector<T>>(static_cast<std::size_t>(n > 0 ? n : 1), T{});
    return Scratch<T>(owner, owner->data());
  }

  template <class T>
  std::vector<T> to_host(const T* data, std::int64_t n) {
    return std::vector<T>(data, data + n);
  }

  template <class T>
  void upload(const T* host, T* data, std::int64_t n) {
    std::copy(host, host + n, data);
  }

  // The host's copies are done when they return.
  template <class T>
  void to_host_async(const T* data, std::int64_t n, T* host) {
    std::copy(data, data + n, host);
  }
  template <class T>
  void upload_async(const T* host, T* data, std::int64_t n) {
    std::copy(host, host + n, data);
  }
  std::function<void()> arrival() { return [] {}; }

  // Plain loops in double, rows across cores.
  void gemm(const GemmShape& shape, const double* a, const double* b, double* c);
};

}  // namespace nb
