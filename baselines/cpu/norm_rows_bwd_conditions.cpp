#include "baselines/cpu/norm_rows_bwd_conditions.hpp"

#include <algorithm>
#include <cmath>
#include <mutex>

#include "harness/parallel.hpp"

namespace nb::cpu {
namespace {

double xhat(const RowsBwdInputs& in, std::int64_t r, std::int64_t j) {
  return (double(in.x[r * in.n + j]) - (in.mean ? double(in.mean[r]) : 0.0)) * double(in.rstd[r]);
}

// sum_r |term(r, j)| for every column j; columns in parallel, rows in order.
template <class Term>
std::vector<double> column_abs_sums(const RowsBwdInputs& in, const Term& term) {
  std::vector<double> sums(std::size_t(in.n), 0.0);
  parallel_for(in.n, [&](std::int64_t j0, std::int64_t j1) {
    for (std::int64_t r = 0; r < in.m; ++r)
      for (std::int64_t j = j0; j < j1; ++j) sums[std::size_t(j)] += std::fabs(term(r, j));
  }, 8);
  return sums;
}

}  // namespace

double normwise_ratio(double scale_squared, double value_squared) {
  if (value_squared == 0) return scale_squared == 0 ? 1 : kMaxRowsBwdCondition;
  return std::clamp(std::sqrt(scale_squared / value_squared), 1.0, kMaxRowsBwdCondition);
}

double column_sum_condition(const std::vector<double>& abs_sums, const double* reference, const Comparison& c) {
  double scale2 = 0, value2 = 0;
  std::int64_t finite = 0;
  for (std::size_t j = 0; j < abs_sums.size(); ++j)
    if (std::isfinite(abs_sums[j]) && std::isfinite(reference[j]))
      scale2 += abs_sums[j] * abs_sums[j], value2 += reference[j] * reference[j], ++finite;
  const double floor = finite ? c.floor_fraction * std::sqrt(value2 / double(finite)) : 0.0;
  double elementwise = 1;
  for (std::size_t j = 0; j < abs_sums.size(); ++j)
    if (std::isfinite(abs_sums[j]) && std::isfinite(reference[j]) && abs_sums[j] > 0) {
      const double denominator = std::fabs(reference[j]) + floor;
      elementwise = std::max(elementwise, denominator > 0 ? abs_sums[j] / denominator / c.elementwise_over_normwise
                                                          : kMaxRowsBwdCondition);
    }
  return std::clamp(std::max(normwise_ratio(scale2, value2), elementwise), 1.0, kMaxRowsBwdCondition);
}

double input_gradient_condition(const RowsBwdInputs& in, const double* dx) {
  std::mutex m;
  double scale2 = 0, value2 = 0;
  parallel_for(in.m, [&](std::int64_t r0, std::int64_t r1) {
    double s2 = 0, v2 = 0;
    for (std::int64_t r = r0; r < r1; ++r) {
      double abs_g = 0, abs_gx = 0;
      for (std::int64_t j = 0; j < in.n; ++j) {
        const double g = double(in.dy[r * in.n + j]) * double(in.w[j]);
        abs_g += std::fabs(g), abs_gx += std::fabs(g * xhat(in, r, j));
      }
      const double mean_abs_g = in.mean ? abs_g / double(in.n) : 0.0, mean_abs_gx = abs_gx / double(in.n);
      const double rstd = std::fabs(double(in.rstd[r]));
      for (std::int64_t j = 0; j < in.n; ++j) {
        const double g = double(in.dy[r * in.n + j]) * double(in.w[j]);
        const double t = rstd * (std::fabs(g) + mean_abs_g + std::fabs(xhat(in, r, j)) * mean_abs_gx);
        const double ref = dx[r * in.n + j];
        if (std::isfinite(t) && std::isfinite(ref)) s2 += t * t, v2 += ref * ref;
      }
    }
    std::lock_guard<std::mutex> lock(m);
    scale2 += s2, value2 += v2;
  }, std::max<std::int64_t>(1, 65536 / in.n));
  return normwise_ratio(scale2, value2);
}

double weight_gradient_condition(const RowsBwdInputs& in, const double* dw, const Comparison& c) {
  return column_sum_condition(
      column_abs_sums(in, [&](std::int64_t r, std::int64_t j) { return double(in.dy[r * in.n + j]) * xhat(in, r, j); }),
      dw, c);
}

double bias_gradient_condition(const RowsBwdInputs& in, const double* db, const Comparison& c) {
  return column_sum_condition(column_abs_sums(in, [&](std::int64_t r, std::int64_t j) { return double(in.dy[r * in.n + j]); }),
                              db, c);
}

}  // namespace nb::cpu
