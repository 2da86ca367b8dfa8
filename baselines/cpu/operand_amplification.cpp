#include "baselines/cpu/operand_amplification.hpp"

#include <algorithm>
#include <cmath>

#include "harness/parallel.hpp"
#include "harness/portable_math.hpp"

namespace nb::linear {

namespace {
using portable::finite_or_zero;

double sum_of_squares(const double* y, std::int64_t n) {
  double sum = 0;
  for (std::int64_t i = 0; i < n; ++i) sum += finite_or_zero(y[i] * y[i]);
  return sum;
}

std::vector<double> row_squares(const float* a, std::int64_t rows, std::int64_t k) {
  std::vector<double> out(std::size_t(rows), 0.0);
  parallel_for(rows, [&](std::int64_t r0, std::int64_t r1) {
    for (std::int64_t r = r0; r < r1; ++r) {
      double sum = 0;
      for (std::int64_t q = 0; q < k; ++q) sum += double(a[r * k + q]) * double(a[r * k + q]);
      out[std::size_t(r)] = sum;
    }
  });
  return out;
}
}  // namespace

OperandNorms operand_norms(const Shape& s, const float* x, const float* w) {
  return {row_squares(x, s.m, s.k), row_squares(w, s.n, s.k)};
}

RoundingErrors product_errors(const Shape& s, const OperandNorms& norms, const float* column_scale) {
  RoundingErrors e;
  e.x2 = norms.x.data(), e.w2 = norms.w.data(), e.column_scale = column_scale, e.k = double(s.k), e.n = s.n;
  return e;
}

RoundingErrors output_errors(const Shape& s, const std::vector<double>& h) {
  RoundingErrors e;
  e.values = h.data(), e.n = s.n;
  return e;
}

double relative_amplification(double errors, double values) {
  if (!(values > 0)) return 0.0;
  const double r = std::sqrt(errors / values);
  return std::isfinite(r) ? std::min(r, kMaxAmplification) : 0.0;
}


BatchNormStatisticAmplifications batchnorm_statistic_amplifications(const Shape& s, const BatchNormStatisticSums& sums) {
  BatchNormStatisticAmplifications a;
  a.save_mean = kTruncationScale + relative_amplification(sums.mean_errors, sums.means);
  a.save_invstd = kTruncationScale + relative_amplification(sums.invstd_errors, sums.invstds);
  // The running statistics take the batch's with weight momentum (the variance unbiased): its
  // scale (twice over for a variance) and its spread, against their own norm.
  a.running_mean = s.momentum * (kTruncationScale * relative_amplification(sums.means, sums.running_means) +
                                 relative_amplification(sums.mean_errors, sums.running_means));
  a.running_var = s.momentum * s.unbias() * (2 * kTruncationScale * relative_amplification(sums.variances, sums.running_vars) +
                                             relative_amplification(sums.var_errors, sums.running_vars));
  a.running_mean = std::min(a.running_mean, kMaxAmplification);
  a.running_var = std::min(a.running_var, kMaxAmplification);
  return a;
}

BatchNormStatisticSums batchnorm_statistic_sums(const Shape& s, const RoundingErrors& e, const std::vector<double>& h,
                                                const BatchNormOutputs& stats) {
  const double mm = double(s.m) * double(s.m);
  BatchNormStatisticSums sums;
  for (std::int64_t j = 0; j < s.n; ++j) {
    double errors = 0, dev = 0;
    for (std::int64_t i = 0; i < s.m; ++i) {
      const double d = h[std::size_t(i * s.n + j)] - stats.save_mean[j], e2 = e.squared(i, j);
      errors += finite_or_zero(e2);
      dev += finite_or_zero(d * d * e2);
    }
    const double invstd = stats.save_invstd[j], var = 1.0 / (invstd * invstd) - s.eps;
    sums.mean_errors += finite_or_zero(errors / mm);
    sums.means += finite_or_zero(stats.save_mean[j] * stats.save_mean[j]);
    sums.invstd_errors += finite_or_zero(invstd * invstd * invstd * invstd * invstd * invstd * dev / mm);
    sums.invstds += finite_or_zero(invstd * invstd);
    sums.var_errors += finite_or_zero(4.0 * dev / mm);
    sums.variances += finite_or_zero(var * var);
    sums.running_means += finite_or_zero(stats.running_mean[j] * stats.running_mean[j]);
    sums.running_vars += finite_or_zero(stats.running_var[j] * stats.running_var[j]);
  }
  return sums;
}

double batchnorm_amplification(const Shape& s, const RoundingErrors& e, const float* gamma, const double* invstd,
                               const double* y) {
  double numerator = 0;
  for (std::int64_t i = 0; i < s.m; ++i)
    for (std::int64_t j = 0; j < s.n; ++j) {
      const double c = double(gamma[j]) * invstd[j];
      numerator += finite_or_zero(c * c * e.squared(i, j));
    }
  return relative_amplification(numerator, sum_of_squares(y, s.m * s.n));
}

double softmax_amplification(const Shape& s, const RoundingErrors& e, const float* gamma, const double* invstd,
                             float scale, const double* y, const double* normalized) {
  const double sc = double(scale);
  double numerator = 0;
  for (std::int64_t i = 0; i < s.m; ++i)
    for (std::int64_t j = 0; j < s.n; ++j) {
      const double v = y[i * s.n + j], c = sc * double(gamma[j]) * invstd[j];
      double term = c * c * e.squared(i, j);
      if (normalized) term += sc * sc * normalized[i * s.n + j] * normalized[i * s.n + j];
      numerator += finite_or_zero(v * v * term);
    }
  return relative_amplification(numerator, sum_of_squares(y, s.m * s.n));
}

double group_minimum_amplification(const Shape& s, const RoundingErrors& e, const float* gamma,
                                   const double* invstd, const std::int64_t* argmin, const double* y) {
  const std::int64_t size = s.group_size();
  double numerator = 0;
  for (std::int64_t r = 0; r < s.m; ++r) {
    const std::int64_t j = argmin[r];
    if (j < 0) continue;
    const double c = double(gamma[j]) * invstd[r * s.groups + j / size];
    numerator += finite_or_zero(c * c * e.squared(r, j));
  }
  return relative_amplification(double(s.n) * numerator, sum_of_squares(y, s.n * s.m));
}

}  // namespace nb::linear
