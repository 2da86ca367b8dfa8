#pragma once
// Where a float64 reference program runs. A program (baselines/gpu/) is a function template over
// its executor: a sequence of `each(n, f)`, f(i) for every i in [0, n), with scratch memory and a
// double GEMM. DeviceExecutor runs each index as a GPU thread (the harness's path); HostExecutor
// runs the same functors on the host's cores (the CPU tests', which compare a program with the
// Eigen reference without a GPU). Executor holds either, for interfaces that cannot be templates.
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace nb {

class DeviceExecutor;
class HostExecutor;

// Memory a program owns for the length of one reference: device memory under DeviceExecutor,
// host memory under HostExecutor.
template <class T>
class Scratch {
 public:
  Scratch() = default;
  Scratch(std::shared_ptr<void> owner, T* data) : owner_(std::move(owner)), data_(data) {}
  T* get() const { return data_; }
  // What keeps the memory alive: held by whatever must outlive an asynchronous copy from it.
  const std::shared_ptr<void>& owner() const { return owner_; }

 private:
  std::shared_ptr<void> owner_;
  T* data_ = nullptr;
};

class Executor {
 public:
  explicit Executor(DeviceExecutor& device) : device_(&device) {}
  explicit Executor(HostExecutor& host) : host_(&host) {}

  // f(executor) with the concrete executor: instantiates f for both, calls the one held.
  template <class F>
  decltype(auto) visit(F&& f) {
    if (device_) return f(*device_);
    return f(*host_);
  }
  bool on_device() const { return device_ != nullptr; }

 private:
  DeviceExecutor* device_ = nullptr;
  HostExecutor* host_ = nullptr;
};

// n values from the executor's memory to the host (small results: statistics, per-slice sums).
std::vector<float> to_host(Executor& ex, const float* data, std::int64_t n);
std::vector<double> to_host(Executor& ex, const double* data, std::int64_t n);

// A wait, callable from any thread, for everything the executor has been given so far (the
// device's asynchronous copies); the host's work is done when it returns.
std::function<void()> arrival(Executor& ex);

// Row-major double GEMM, C (m, n) = op(A) op(B), op(A) (m, k) and op(B) (k, n); a transposed
// operand is stored as its transpose (A as (k, m), B as (n, k)).
struct GemmShape {
  std::int64_t m = 0, n = 0, k = 0;
  bool transpose_a = false, transpose_b = false;
};

}  // namespace nb
