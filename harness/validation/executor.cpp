#include "harness/validation/executor.hpp"

#include "harness/validation/device_executor.hpp"
#include "harness/validation/host_executor.hpp"

namespace nb {

std::vector<float> to_host(Executor& ex, const float* data, std::int64_t n) {
  return ex.visit([&](auto& e) { return e.to_host(data, n); });
}

std::vector<double> to_host(Executor& ex, const double* data, std::int64_t n) {
  return ex.visit([&](auto& e) { return e.to_host(data, n); });
}

std::function<void()> arrival(Executor& ex) {
  return ex.visit([](auto& e) { return e.arrival(); });
}

}  // namespace nb
