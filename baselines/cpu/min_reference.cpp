#include "baselines/cpu/min_reference.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "harness/parallel.hpp"

namespace nb::cpu {

void min_dim1_reference(std::int64_t b, std::int64_t c, const float* x, double* y) {
  parallel_for(b, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t row = begin; row < end; ++row) {
      double mn = std::numeric_limits<double>::infinity();
      for (std::int64_t i = 0; i < c; ++i) {
        const double v = x[row * c + i];
        if (std::isnan(v)) { mn = v; break; }
        mn = std::min(mn, v);
      }
      y[row] = mn;
    }
  }, std::max<std::int64_t>(1, 65536 / std::max<std::int64_t>(1, c)));
}

}  // namespace nb::cpu
