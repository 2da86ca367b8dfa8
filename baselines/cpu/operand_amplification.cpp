#include "baselines/cpu/operand_amplification.hpp"

#include <algorithm>
#include <cmath>

#include "harness/parallel.hpp"

namespace nb::linear {

namespace {
double finite_or_zero(double v) { return std::isfinite(v) ? v : 0.0; }

double sum_of_squares(const double* y, std::int64_t n) {
  double sum = 0;
  for (std::int64_t i = 0; i < n; ++i) sum += finite_or_zero(y[i] * y[i]);
  return sum;
}
}  // namespace

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

double amplification_ratio(double numerator, double k, double y_squares) {
  if (!(y_squares > 0)) return 0.0;
  const double a = std::sqrt(numerator / (k * y_squares));
  return std::isfinite(a) ? std::min(a, kMaxAmplification) : 0.0;
}

double batchnorm_amplification(const Shape& s, const float* x, const float* w, const float* gamma,
                               const double* invstd, const float* scale, const double* y) {
  const std::vector<double> xs = row_squares(x, s.m, s.k), ws = row_squares(w, s.n, s.k);
  double rows = 0, columns = 0;
  for (double v : xs) rows += finite_or_zero(v);
  for (std::int64_t j = 0; j < s.n; ++j) {
    const double c = double(gamma[j]) * invstd[j] * double(scale[j]);
    columns += finite_or_zero(c * c * ws[std::size_t(j)]);
  }
  return amplification_ratio(rows * columns, double(s.k), sum_of_squares(y, s.m * s.n));
}

double softmax_amplification(const Shape& s, const float* x, const float* w, const float* gamma,
                             const double* invstd, float scale, const double* y) {
  const std::vector<double> xs = row_squares(x, s.m, s.k), ws = row_squares(w, s.n, s.k);
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
  return amplification_ratio(numerator, double(s.k), sum_of_squares(y, s.m * s.n));
}

double group_minimum_amplification(const Shape& s, const float* x, const float* w, const float* gamma,
                                   const double* invstd, const std::int64_t* argmin, const double* y) {
  const std::vector<double> xs = row_squares(x, s.m, s.k);
  const std::int64_t size = s.group_size();
  double numerator = 0;
  for (std::int64_t r = 0; r < s.m; ++r) {
    const std::int64_t j = argmin[r];
    if (j < 0) continue;
    double wj = 0;
    for (std::int64_t q = 0; q < s.k; ++q) wj += double(w[j * s.k + q]) * double(w[j * s.k + q]);
    const double c = double(gamma[j]) * invstd[r * s.groups + j / size];
    numerator += finite_or_zero(c * c * xs[std::size_t(r)] * wj);
  }
  return amplification_ratio(double(s.n) * numerator, double(s.k), sum_of_squares(y, s.n * s.m));
}

}  // namespace nb::linear
