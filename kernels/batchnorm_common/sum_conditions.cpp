#include "kernels/batchnorm_common/sum_conditions.hpp"

#include <algorithm>
#include <cmath>
#include <mutex>

#include "harness/parallel.hpp"

namespace nb::bn {
namespace {

double ratio(double scale, double value) {
  if (!std::isfinite(scale) || !std::isfinite(value)) return 1;
  if (value == 0) return scale == 0 ? 1 : kMaxCondition;
  return std::clamp(scale / value, 1.0, kMaxCondition);
}

}  // namespace

double mean_condition(const Shape& s, const float* x) {
  double worst = 1;
  std::mutex m;
  parallel_for(s.c, [&](std::int64_t c0, std::int64_t c1) {
    for (std::int64_t c = c0; c < c1; ++c) {
      double sum = 0, abs_sum = 0;
      for (std::int64_t n = 0; n < s.n; ++n)
        for (std::int64_t i = 0; i < s.hw; ++i) {
          const double v = x[(n * s.c + c) * s.hw + i];
          sum += v, abs_sum += std::fabs(v);
        }
      const double own = ratio(abs_sum, std::fabs(sum));
      std::lock_guard<std::mutex> lock(m);
      worst = std::max(worst, own);
    }
  }, 1);
  return worst;
}

GradientConditions gradient_conditions(const Shape& s, const float* x, const float* dy, const float* gamma,
                                       const float* mean, const float* invstd, const double* dx_reference) {
  GradientConditions worst;
  std::mutex m;
  parallel_for(s.c, [&](std::int64_t c0, std::int64_t c1) {
    for (std::int64_t c = c0; c < c1; ++c) {
      double sum_dy = 0, abs_dy = 0, sum_dyx = 0, abs_dyx = 0, term2 = 0, dx2 = 0;
      const double k = std::fabs(double(gamma[c]) * invstd[c]);
      for (std::int64_t n = 0; n < s.n; ++n)
        for (std::int64_t i = 0; i < s.hw; ++i) {
          const std::int64_t at = (n * s.c + c) * s.hw + i;
          const double g = dy[at], xhat = (double(x[at]) - mean[c]) * invstd[c];
          sum_dy += g, abs_dy += std::fabs(g);
          sum_dyx += g * xhat, abs_dyx += std::fabs(g * xhat);
          term2 += k * k * g * g, dx2 += dx_reference[at] * dx_reference[at];
        }
      const GradientConditions own{ratio(std::sqrt(term2), std::sqrt(dx2)), ratio(abs_dyx, std::fabs(sum_dyx)),
                                   ratio(abs_dy, std::fabs(sum_dy))};
      std::lock_guard<std::mutex> lock(m);
      worst.dx = std::max(worst.dx, own.dx);
      worst.dgamma = std::max(worst.dgamma, own.dgamma);
      worst.dbeta = std::max(worst.dbeta, own.dbeta);
    }
  }, 1);
  return worst;
}

}  // namespace nb::bn
