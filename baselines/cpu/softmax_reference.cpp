#include "baselines/cpu/softmax_reference.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "harness/parallel.hpp"

namespace nb::cpu {

void softmax_reference(std::int64_t m, std::int64_t n, const float* x, double* y) {
  parallel_for(m, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t row = begin; row < end; ++row) {
      const float* xr = x + row * n;
      double* yr = y + row * n;
      double mx = -std::numeric_limits<double>::infinity();
      for (std::int64_t i = 0; i < n; ++i) mx = xr[i] > mx ? double(xr[i]) : mx;  // a NaN surfaces in the sum
      double sum = 0;
      for (std::int64_t i = 0; i < n; ++i) sum += (yr[i] = std::exp(xr[i] - mx));
      for (std::int64_t i = 0; i < n; ++i) yr[i] /= sum;
    }
  }, std::max<std::int64_t>(1, 65536 / std::max<std::int64_t>(1, n)));
}

}  // namespace nb::cpu
