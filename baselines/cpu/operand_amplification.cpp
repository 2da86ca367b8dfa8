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

double finite_sum(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += finite_or_zero(x);
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

BatchNormStatisticSums batchnorm_statistic_sums(const Shape& s, const OperandNorms& norms, const float* column_scale,
                                                const std::vector<double>& h, const BatchNormOutputs& stats) {
  const std::vector<double>&xs = norms.x, &ws = norms.w;
  const double x_total = finite_sum(xs);
  BatchNormStatisticSums sums;
  for (std::int64_t j = 0; j < s.n; ++j) {
    double dev = 0;
    for (std::int64_t i = 0; i < s.m; ++i) {
      const double d = h[std::size_t(i * s.n + j)] - stats.save_mean[j];
      dev += finite_or_zero(d * d * xs[std::size_t(i)]);
    }
    const double scale = column_scale ? double(column_scale[j]) : 1.0;
    const double q = scale * scale * ws[std::size_t(j)] / (double(s.m) * double(s.m) * double(s.k));
    const double invstd = stats.save_invstd[j], var = 1.0 / (invstd * invstd) - s.eps;
    sums.mean_errors += finite_or_zero(q * x_total);
    sums.means += finite_or_zero(stats.save_mean[j] * stats.save_mean[j]);
    sums.invstd_errors += finite_or_zero(invstd * invstd * invstd * invstd * invstd * invstd * dev * q);
    sums.invstds += finite_or_zero(invstd * invstd);
    sums.var_errors += finite_or_zero(4.0 * dev * q);
    sums.variances += finite_or_zero(var * var);
    sums.running_means += finite_or_zero(stats.running_mean[j] * stats.running_mean[j]);
    sums.running_vars += finite_or_zero(stats.running_var[j] * stats.running_var[j]);
  }
  return sums;
}

double batchnorm_amplification(const Shape& s, const OperandNorms& norms, const float* gamma, const double* invstd,
                               const float* scale, const double* y) {
  double columns = 0;
  for (std::int64_t j = 0; j < s.n; ++j) {
    const double c = double(gamma[j]) * invstd[j] * double(scale[j]);
    columns += finite_or_zero(c * c * norms.w[std::size_t(j)]);
  }
  return relative_amplification(finite_sum(norms.x) * columns, double(s.k) * sum_of_squares(y, s.m * s.n));
}

double softmax_amplification(const Shape& s, const OperandNorms& norms, const float* gamma, const double* invstd,
                             float scale, const double* y) {
  const std::vector<double>&xs = norms.x, &ws = norms.w;
  std::vector<double> column(std::size_t(s.n));
  for (std::int64_t j = 0; j < s.n; ++j) {
    const double c = double(scale) * double(gamma[j]) * invstd[j];
    column[std::size_t(j)] = c * c * ws[std::size_t(j)];
  }
  double numerator = 0;
  for (std::int64_t i = 0; i < s.m; ++i)
    for (std::int64_t j = 0; j < s.n; ++j) {
      const double v = y[i * s.n + j];
      numerator += finite_or_zero(v * v * column[std::size_t(j)] * xs[std::size_t(i)]);
    }
  return relative_amplification(numerator, double(s.k) * sum_of_squares(y, s.m * s.n));
}

double group_minimum_amplification(const Shape& s, const OperandNorms& norms, const float* gamma,
                                   const double* invstd, const std::int64_t* argmin, const double* y) {
  const std::int64_t size = s.group_size();
  double numerator = 0;
  for (std::int64_t r = 0; r < s.m; ++r) {
    const std::int64_t j = argmin[r];
    if (j < 0) continue;
    const double c = double(gamma[j]) * invstd[r * s.groups + j / size];
    numerator += finite_or_zero(c * c * norms.x[std::size_t(r)] * norms.w[std::size_t(j)]);
  }
  return relative_amplification(double(s.n) * numerator, double(s.k) * sum_of_squares(y, s.n * s.m));
}

}  // namespace nb::linear
