#include "baselines/gpu/row_references.hpp"
#include "harness/portable_math.hpp"
#include "harness/validation/device_executor.cuh"
#include "harness/validation/host_executor.hpp"
#include "harness/validation/slice_reduce.cuh"

namespace nb::gpu {

template <class Ex>
void rmsnorm_rows(Ex& ex, stored::Tensor x, stored::Tensor w, double* y, std::int64_t m, std::int64_t n, double eps) {
  const Scratch<double> squares = slice_sums(ex, m, n, [=] NB_HD(std::int64_t row, std::int64_t j) {
    const double v = x[row * n + j];
    return v * v;
  });
  const double* sq = squares.get();
  ex.each(m * n, [=] NB_HD(std::int64_t i) {
    const double denom = sqrt(sq[i / n] / double(n) + eps);
    y[i] = double(x[i]) / denom * double(w[i % n]);
  });
}

template <class Ex>
void rmsnorm_nchw(Ex& ex, stored::Tensor x, double* y, std::int64_t n, std::int64_t c, std::int64_t plane, double eps) {
  // A slice is one position of one image: its c values, a plane apart.
  const Scratch<double> squares = slice_sums(ex, n * plane, c, [=] NB_HD(std::int64_t slice, std::int64_t ch) {
    const double v = x[(slice / plane * c + ch) * plane + slice % plane];
    return v * v;
  });
  const double* sq = squares.get();
  ex.each(n * c * plane, [=] NB_HD(std::int64_t i) {
    const std::int64_t slice = i / (c * plane) * plane + i % plane;
    y[i] = double(x[i]) / sqrt(sq[slice] / double(c) + eps);
  });
}

template <class Ex>
double layernorm_rows(Ex& ex, stored::Tensor x, stored::Tensor w, stored::Tensor b, double* y, double* mean,
                      double* rstd, std::int64_t m, std::int64_t n, double eps) {
  const Scratch<double> sums = slice_sums(ex, m, n, [=] NB_HD(std::int64_t row, std::int64_t j) { return double(x[row * n + j]); });
  const double* sum = sums.get();
  ex.each(m, [=] NB_HD(std::int64_t row) { mean[row] = sum[row] / double(n); });
  const Scratch<double> deviations = slice_sums(ex, m, n, [=] NB_HD(std::int64_t row, std::int64_t j) {
    const double d = double(x[row * n + j]) - mean[row];
    return d * d;
  });
  const Scratch<double> squares = slice_sums(ex, m, n, [=] NB_HD(std::int64_t row, std::int64_t j) {
    const double v = x[row * n + j];
    return v * v;
  });
  const double* dev2 = deviations.get();
  const double* sq = squares.get();
  const Scratch<double> conditions = ex.template scratch<double>(m);
  double* k = conditions.get();
  ex.each(m, [=] NB_HD(std::int64_t row) {
    const double var = dev2[row] / double(n);
    rstd[row] = 1.0 / sqrt(var + eps);
    k[row] = sqrt(sq[row] / double(n) / (var + eps));
  });
  ex.each(m * n, [=] NB_HD(std::int64_t i) {
    const std::int64_t row = i / n, j = i % n;
    y[i] = (double(x[i]) - mean[row]) * rstd[row] * double(w[j]) + double(b[j]);
  });
  double worst = 1.0;
  for (double v : ex.to_host(k, m))
    if (portable::is_finite(v) && v > worst) worst = v;
  return worst;
}

template <class Ex>
void softmax_rows(Ex& ex, stored::Tensor x, double* y, std::int64_t m, std::int64_t n) {
  const Scratch<double> maxima = slice_reduce(
      ex, m, n, -INFINITY, [=] NB_HD(std::int64_t row, std::int64_t j) { return double(x[row * n + j]); }, Larger{});
  const double* mx = maxima.get();
  const Scratch<double> sums = slice_sums(ex, m, n, [=] NB_HD(std::int64_t row, std::int64_t j) {
    return exp(double(x[row * n + j]) - mx[row]);
  });
  const double* sum = sums.get();
  ex.each(m * n, [=] NB_HD(std::int64_t i) { y[i] = exp(double(x[i]) - mx[i / n]) / sum[i / n]; });
}

template <class Ex>
void min_rows(Ex& ex, stored::Tensor x, double* y, std::int64_t m, std::int64_t n) {
  const Scratch<double> minima = slice_reduce(
      ex, m, n, INFINITY, [=] NB_HD(std::int64_t row, std::int64_t j) { return double(x[row * n + j]); }, NanMin{});
  const double* mn = minima.get();
  ex.each(m, [=] NB_HD(std::int64_t row) { y[row] = mn[row]; });
}

#define NB_INSTANTIATE(Ex)                                                                                           \
  template void rmsnorm_rows<Ex>(Ex&, stored::Tensor, stored::Tensor, double*, std::int64_t, std::int64_t, double); \
  template void rmsnorm_nchw<Ex>(Ex&, stored::Tensor, double*, std::int64_t, std::int64_t, std::int64_t, double);   \
  template double layernorm_rows<Ex>(Ex&, stored::Tensor, stored::Tensor, stored::Tensor, double*, double*, double*, \
                                     std::int64_t, std::int64_t, double);                                            \
  template void softmax_rows<Ex>(Ex&, stored::Tensor, double*, std::int64_t, std::int64_t);                          \
  template void min_rows<Ex>(Ex&, stored::Tensor, double*, std::int64_t, std::int64_t);
NB_INSTANTIATE(DeviceExecutor)
NB_INSTANTIATE(HostExecutor)
#undef NB_INSTANTIATE

}  // namespace nb::gpu
