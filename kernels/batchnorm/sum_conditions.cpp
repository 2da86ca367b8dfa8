#include "kernels/batchnorm/sum_conditions.hpp"

#include <algorithm>
#include <cmath>

#include "harness/parallel.hpp"

namespace nb::bn {
namespace {

double ratio(double scale, double value) {
  if (!std::isfinite(scale) || !std::isfinite(value)) return 1;
  if (value == 0) return scale == 0 ? 1 : kMaxCondition;
  return std::clamp(scale / value, 1.0, kMaxCondition);
}

}  // namespace

double mean_condition(const std::vector<double>& sum, const std::vector<double>& abs_sum) {
  double worst = 1;
  for (std::size_t c = 0; c < sum.size(); ++c) worst = std::max(worst, ratio(abs_sum[c], std::fabs(sum[c])));
  return worst;
}

double mean_condition(const Shape& s, const float* x) {
  std::vector<double> sum(std::size_t(s.c), 0.0), abs_sum(std::size_t(s.c), 0.0);
  parallel_for(s.c, [&](std::int64_t c0, std::int64_t c1) {
    for (std::int64_t c = c0; c < c1; ++c)
      for (std::int64_t n = 0; n < s.n; ++n)
        for (std::int64_t i = 0; i < s.hw; ++i) {
          const double v = x[(n * s.c + c) * s.hw + i];
          sum[std::size_t(c)] += v, abs_sum[std::size_t(c)] += std::fabs(v);
        }
  }, 1);
  return mean_condition(sum, abs_sum);
}

GradientConditions gradient_conditions(const gpu::GradientSums& g) {
  GradientConditions worst;
  for (std::size_t c = 0; c < g.sum_dy.size(); ++c) {
    worst.dx = std::max(worst.dx, ratio(std::sqrt(g.term2[c]), std::sqrt(g.dx2[c])));
    worst.dgamma = std::max(worst.dgamma, ratio(g.abs_dyx[c], std::fabs(g.sum_dyx[c])));
    worst.dbeta = std::max(worst.dbeta, ratio(g.abs_dy[c], std::fabs(g.sum_dy[c])));
  }
  return worst;
}

GradientConditions gradient_conditions(const Shape& s, const float* x, const float* dy, const float* gamma,
                                       const float* mean, const float* invstd, const double* dx_reference) {
  gpu::GradientSums g;
  for (auto* v : {&g.sum_dy, &g.abs_dy, &g.sum_dyx, &g.abs_dyx, &g.term2, &g.dx2}) v->assign(std::size_t(s.c), 0.0);
  parallel_for(s.c, [&](std::int64_t c0, std::int64_t c1) {
    for (std::int64_t c = c0; c < c1; ++c) {
      const std::size_t k_at = std::size_t(c);
      const double k = std::fabs(double(gamma[c]) * invstd[c]);
      for (std::int64_t n = 0; n < s.n; ++n)
        for (std::int64_t i = 0; i < s.hw; ++i) {
          const std::int64_t at = (n * s.c + c) * s.hw + i;
          const double dyv = dy[at], xhat = (double(x[at]) - mean[c]) * invstd[c];
          g.sum_dy[k_at] += dyv, g.abs_dy[k_at] += std::fabs(dyv);
          g.sum_dyx[k_at] += dyv * xhat, g.abs_dyx[k_at] += std::fabs(dyv * xhat);
          g.term2[k_at] += k * k * dyv * dyv, g.dx2[k_at] += dx_reference[at] * dx_reference[at];
        }
    }
  }, 1);
  return gradient_conditions(g);
}

}  // namespace nb::bn
