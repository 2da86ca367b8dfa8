#include "baselines/gpu/gemm_pipeline_references.hpp"
#include "baselines/gpu/linear_reference.hpp"
#include "harness/portable_math.hpp"
#include "harness/validation/device_executor.cuh"
#include "harness/validation/host_executor.hpp"
#include "harness/validation/slice_reduce.cuh"

namespace nb::gpu {
namespace pipeline_steps {

// BatchNorm's batch statistics of each column of h (m, n), two-pass with the biased variance, the
// running statistics updated with momentum and the unbiased variance, and
// y = (h - mean) * invstd * gamma + beta.
template <class Ex>
void batchnorm_columns(Ex& ex, const double* h, std::int64_t m, std::int64_t n, const BatchNormColumns& bn, double* y) {
  const Scratch<double> sums = slice_sums(ex, n, m, [=] NB_HD(std::int64_t c, std::int64_t r) { return h[r * n + c]; });
  const double* sum = sums.get();
  double* mean = bn.save_mean;
  ex.each(n, [=] NB_HD(std::int64_t c) { mean[c] = sum[c] / double(m); });
  const Scratch<double> deviations = slice_sums(ex, n, m, [=] NB_HD(std::int64_t c, std::int64_t r) {
    const double d = h[r * n + c] - mean[c];
    return d * d;
  });
  const double* dev2 = deviations.get();
  double *invstd = bn.save_invstd, *running_mean = bn.new_running_mean, *running_var = bn.new_running_var;
  const float *old_mean = bn.running_mean, *old_var = bn.running_var;
  const double eps = bn.eps, momentum = bn.momentum, unbias = double(m) / double(m - 1);
  ex.each(n, [=] NB_HD(std::int64_t c) {
    const double var = dev2[c] / double(m);
    invstd[c] = 1.0 / sqrt(var + eps);
    running_mean[c] = (1 - momentum) * double(old_mean[c]) + momentum * mean[c];
    running_var[c] = (1 - momentum) * double(old_var[c]) + momentum * var * unbias;
  });
  const float *gamma = bn.gamma, *beta = bn.beta;
  ex.each(m * n, [=] NB_HD(std::int64_t i) {
    const std::int64_t c = i % n;
    y[i] = (h[i] - mean[c]) * invstd[c] * double(gamma[c]) + double(beta[c]);
  });
}

// Softmax of each row of z (m, n) in place, the row max subtracted.
template <class Ex>
void softmax_rows_in_place(Ex& ex, double* z, std::int64_t m, std::int64_t n) {
  const Scratch<double> maxima = slice_reduce(
      ex, m, n, -INFINITY, [=] NB_HD(std::int64_t row, std::int64_t j) { return z[row * n + j]; }, Larger{});
  const double* mx = maxima.get();
  const Scratch<double> sums = slice_sums(ex, m, n, [=] NB_HD(std::int64_t row, std::int64_t j) {
    return exp(z[row * n + j] - mx[row]);
  });
  const double* sum = sums.get();
  ex.each(m * n, [=] NB_HD(std::int64_t i) { z[i] = exp(z[i] - mx[i / n]) / sum[i / n]; });
}

// GroupNorm of g in place: `count` groups, each a run of `size` consecutive elements (a row of g
// holds n / size of them), per-channel gamma and beta over a row's n channels. Returns the largest
// sqrt(1 + (mean * invstd)^2) where it is finite, at least 1 and at most 1e5.
template <class Ex>
double groupnorm_in_place(Ex& ex, double* g, std::int64_t count, std::int64_t size, std::int64_t n,
                          const float* gamma, const float* beta, double eps) {
  const Scratch<double> sums = slice_sums(ex, count, size, [=] NB_HD(std::int64_t s, std::int64_t i) { return g[s * size + i]; });
  const Scratch<double> means = ex.template scratch<double>(count);
  const double* sum = sums.get();
  double* mean = means.get();
  ex.each(count, [=] NB_HD(std::int64_t s) { mean[s] = sum[s] / double(size); });
  const Scratch<double> deviations = slice_sums(ex, count, size, [=] NB_HD(std::int64_t s, std::int64_t i) {
    return (g[s * size + i] - mean[s]) * (g[s * size + i] - mean[s]);
  });
  const Scratch<double> invstds = ex.template scratch<double>(count), conditions = ex.template scratch<double>(count);
  const double* dev2 = deviations.get();
  double *invstd = invstds.get(), *k = conditions.get();
  ex.each(count, [=] NB_HD(std::int64_t s) {
    invstd[s] = 1.0 / sqrt(dev2[s] / double(size) + eps);
    const double r = mean[s] * invstd[s];
    k[s] = portable::is_finite(r) ? sqrt(1.0 + mean[s] * invstd[s] * mean[s] * invstd[s]) : 1.0;
  });
  ex.each(count * size, [=] NB_HD(std::int64_t i) {
    const std::int64_t s = i / size, c = i % n;
    g[i] = (g[i] - mean[s]) * invstd[s] * double(gamma[c]) + double(beta[c]);
  });
  const Scratch<double> worst =
      slice_reduce(ex, 1, count, 1.0, [=] NB_HD(std::int64_t, std::int64_t s) { return k[s]; }, Larger{});
  const double largest = ex.to_host(worst.get(), 1)[0];
  return largest < 1e5 ? largest : 1e5;
}

// The smaller of two, NaN winning (torch.min propagates NaN).
}  // namespace pipeline_steps

template <class Ex>
void gemm_scale_bn(Ex& ex, const LinearOperands& lin, const float* scale, const BatchNormColumns& bn, double* y) {
  const std::int64_t m = lin.m, n = lin.n;
  const Scratch<double> g = linear(ex, lin.x, lin.w, lin.b, m, n, lin.k);
  double* h = g.get();
  ex.each(m * n, [=] NB_HD(std::int64_t i) { h[i] *= double(scale[i % n]); });
  pipeline_steps::batchnorm_columns(ex, h, m, n, bn, y);
}

template <class Ex>
void gemm_bn_scale_softmax(Ex& ex, const LinearOperands& lin, const float* scale, const BatchNormColumns& bn, double* y) {
  const std::int64_t m = lin.m, n = lin.n;
  const Scratch<double> g = linear(ex, lin.x, lin.w, lin.b, m, n, lin.k);
  pipeline_steps::batchnorm_columns(ex, g.get(), m, n, bn, y);
  ex.each(m * n, [=] NB_HD(std::int64_t i) { y[i] *= double(scale[0]); });
  pipeline_steps::softmax_rows_in_place(ex, y, m, n);
}

template <class Ex>
double gemm_gn_min_bias(Ex& ex, const LinearOperands& lin, std::int64_t groups, const float* gamma, const float* beta,
                        const float* add_bias, double eps, double* y) {
  const std::int64_t m = lin.m, n = lin.n;
  const Scratch<double> g = linear(ex, lin.x, lin.w, lin.b, m, n, lin.k);
  double* z = g.get();
  const double condition = pipeline_steps::groupnorm_in_place(ex, z, m * groups, n / groups, n, gamma, beta, eps);
  const Scratch<double> minima = slice_reduce(
      ex, m, n, INFINITY, [=] NB_HD(std::int64_t row, std::int64_t j) { return z[row * n + j]; }, NanMin{});
  const double* mn = minima.get();
  ex.each(n * m, [=] NB_HD(std::int64_t i) { y[i] = mn[i % m] + double(add_bias[i / m]); });
  return condition;
}

#define NB_INSTANTIATE(Ex)                                                                                          \
  template void gemm_scale_bn<Ex>(Ex&, const LinearOperands&, const float*, const BatchNormColumns&, double*);         \
  template void gemm_bn_scale_softmax<Ex>(Ex&, const LinearOperands&, const float*, const BatchNormColumns&, double*); \
  template double gemm_gn_min_bias<Ex>(Ex&, const LinearOperands&, std::int64_t, const float*, const float*,           \
                                       const float*, double, double*);
NB_INSTANTIATE(DeviceExecutor)
NB_INSTANTIATE(HostExecutor)
#undef NB_INSTANTIATE

}  // namespace nb::gpu
