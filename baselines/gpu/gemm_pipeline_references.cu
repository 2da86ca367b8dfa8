#include "baselines/gpu/gemm_pipeline_references.hpp"
#include "baselines/cpu/operand_amplification.hpp"
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
// holds n / size of them), per-channel gamma and beta over a row's n channels; each group's invstd
// to `invstd` (count). Returns the largest sqrt(1 + (mean * invstd)^2) where it is finite, at least
// 1 and at most 1e5.
template <class Ex>
double groupnorm_in_place(Ex& ex, double* g, std::int64_t count, std::int64_t size, std::int64_t n,
                          const float* gamma, const float* beta, double eps, double* invstd) {
  const Scratch<double> sums = slice_sums(ex, count, size, [=] NB_HD(std::int64_t s, std::int64_t i) { return g[s * size + i]; });
  const Scratch<double> means = ex.template scratch<double>(count);
  const double* sum = sums.get();
  double* mean = means.get();
  ex.each(count, [=] NB_HD(std::int64_t s) { mean[s] = sum[s] / double(size); });
  const Scratch<double> deviations = slice_sums(ex, count, size, [=] NB_HD(std::int64_t s, std::int64_t i) {
    return (g[s * size + i] - mean[s]) * (g[s * size + i] - mean[s]);
  });
  const Scratch<double> conditions = ex.template scratch<double>(count);
  const double* dev2 = deviations.get();
  double* k = conditions.get();
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

// The shape the host's amplification formulas read (M, N, K, eps, momentum).
inline linear::Shape shape_of(const LinearOperands& lin, const BatchNormColumns& bn) {
  linear::Shape s;
  s.m = lin.m, s.n = lin.n, s.k = lin.k, s.eps = bn.eps, s.momentum = bn.momentum;
  return s;
}

// The operand amplification's sums (baselines/cpu/operand_amplification.hpp), each over its
// finite terms: ||a_r||^2 of each row of a (rows, k); the sum of term(i) over [0, count).
using portable::finite_or_zero;

template <class Ex>
Scratch<double> row_squares(Ex& ex, stored::Tensor a, std::int64_t rows, std::int64_t k) {
  return slice_sums(ex, rows, k, [=] NB_HD(std::int64_t r, std::int64_t q) {
    const double v = a[r * k + q];
    return v * v;
  });
}

template <class Ex, class Term>
double finite_total(Ex& ex, std::int64_t count, Term term) {
  const Scratch<double> sum =
      slice_sums(ex, 1, count, [=] NB_HD(std::int64_t, std::int64_t i) { return finite_or_zero(term(i)); });
  return ex.to_host(sum.get(), 1)[0];
}

template <class Ex>
double sum_of_squares(Ex& ex, const double* y, std::int64_t count) {
  return finite_total(ex, count, [=] NB_HD(std::int64_t i) { return y[i] * y[i]; });
}

// linear::RoundingErrors on the executor: the products' (the operands' row norms, kept in the
// scratch beside them), or the values of h, the normalization's input, for a bf16 problem.
struct ExecutorRoundingErrors {
  Scratch<double> x2, w2;
  linear::RoundingErrors e;
};
template <class Ex>
ExecutorRoundingErrors rounding_errors(Ex& ex, const LinearOperands& lin, const float* column_scale, const double* h) {
  ExecutorRoundingErrors out;
  out.e.n = lin.n;
  if (lin.rounds_output) {
    out.e.values = h;
    return out;
  }
  out.x2 = row_squares(ex, lin.x, lin.m, lin.k);
  out.w2 = row_squares(ex, lin.w, lin.n, lin.k);
  out.e.x2 = out.x2.get(), out.e.w2 = out.w2.get(), out.e.column_scale = column_scale, out.e.k = double(lin.k);
  return out;
}

// A copy of `count` doubles: a value the next step overwrites in place, kept for the errors.
template <class Ex>
Scratch<double> copy_of(Ex& ex, const double* values, std::int64_t count) {
  Scratch<double> out = ex.template scratch<double>(count);
  double* o = out.get();
  ex.each(count, [=] NB_HD(std::int64_t i) { o[i] = values[i]; });
  return out;
}

// linear::batchnorm_statistic_sums on the executor: h before the normalization, e its errors.
template <class Ex>
linear::BatchNormStatisticSums statistic_sums(Ex& ex, const LinearOperands& lin, const linear::RoundingErrors& e,
                                              const double* h, const BatchNormColumns& bn) {
  const std::int64_t n = lin.n;
  const double mm = double(lin.m) * double(lin.m), eps = bn.eps;
  const double *mean = bn.save_mean, *invstd = bn.save_invstd;
  const double *running_mean = bn.new_running_mean, *running_var = bn.new_running_var;
  const Scratch<double> error_sums = slice_sums(ex, n, lin.m, [=] NB_HD(std::int64_t j, std::int64_t i) {
    return finite_or_zero(e.squared(i, j));
  });
  const Scratch<double> devs = slice_sums(ex, n, lin.m, [=] NB_HD(std::int64_t j, std::int64_t i) {
    const double d = h[i * n + j] - mean[j];
    return finite_or_zero(d * d * e.squared(i, j));
  });
  const double *errors = error_sums.get(), *dev = devs.get();
  linear::BatchNormStatisticSums sums;
  sums.mean_errors = finite_total(ex, n, [=] NB_HD(std::int64_t j) { return errors[j] / mm; });
  sums.means = finite_total(ex, n, [=] NB_HD(std::int64_t j) { return mean[j] * mean[j]; });
  sums.invstd_errors = finite_total(ex, n, [=] NB_HD(std::int64_t j) {
    const double v = invstd[j];
    return v * v * v * v * v * v * dev[j] / mm;
  });
  sums.invstds = finite_total(ex, n, [=] NB_HD(std::int64_t j) { return invstd[j] * invstd[j]; });
  sums.var_errors = finite_total(ex, n, [=] NB_HD(std::int64_t j) { return 4.0 * dev[j] / mm; });
  sums.variances = finite_total(ex, n, [=] NB_HD(std::int64_t j) {
    const double var = 1.0 / (invstd[j] * invstd[j]) - eps;
    return var * var;
  });
  sums.running_means = finite_total(ex, n, [=] NB_HD(std::int64_t j) { return running_mean[j] * running_mean[j]; });
  sums.running_vars = finite_total(ex, n, [=] NB_HD(std::int64_t j) { return running_var[j] * running_var[j]; });
  return sums;
}
}  // namespace pipeline_steps

template <class Ex>
BatchNormPipelineAmplifications gemm_scale_bn(Ex& ex, const LinearOperands& lin, const float* scale,
                                              const BatchNormColumns& bn, double* y) {
  const std::int64_t m = lin.m, n = lin.n;
  const Scratch<double> g = linear(ex, lin.x, lin.w, lin.b, m, n, lin.k);
  double* h = g.get();
  ex.each(m * n, [=] NB_HD(std::int64_t i) { h[i] *= double(scale[i % n]); });
  pipeline_steps::batchnorm_columns(ex, h, m, n, bn, y);
  using namespace pipeline_steps;
  const ExecutorRoundingErrors errors = rounding_errors(ex, lin, scale, h);
  const linear::RoundingErrors e = errors.e;
  const float* gamma = bn.gamma;
  const double* invstd = bn.save_invstd;
  const double numerator = finite_total(ex, m * n, [=] NB_HD(std::int64_t i) {
    const double c = double(gamma[i % n]) * invstd[i % n];
    return c * c * e.squared(i / n, i % n);
  });
  BatchNormPipelineAmplifications out;
  out.y = linear::relative_amplification(numerator, sum_of_squares(ex, y, m * n));
  out.statistics = linear::batchnorm_statistic_amplifications(shape_of(lin, bn), statistic_sums(ex, lin, e, h, bn));
  return out;
}

template <class Ex>
BatchNormPipelineAmplifications gemm_bn_scale_softmax(Ex& ex, const LinearOperands& lin, const float* scale,
                                                      const BatchNormColumns& bn, double* y) {
  const std::int64_t m = lin.m, n = lin.n;
  const Scratch<double> g = linear(ex, lin.x, lin.w, lin.b, m, n, lin.k);
  pipeline_steps::batchnorm_columns(ex, g.get(), m, n, bn, y);
  using namespace pipeline_steps;
  // BatchNorm's output z, before the softmax overwrites it: autocast rounds it to bf16 as well.
  Scratch<double> normalized;
  if (lin.rounds_output) normalized = copy_of(ex, y, m * n);
  ex.each(m * n, [=] NB_HD(std::int64_t i) { y[i] *= double(scale[0]); });
  pipeline_steps::softmax_rows_in_place(ex, y, m, n);
  const ExecutorRoundingErrors errors = rounding_errors(ex, lin, nullptr, g.get());
  const linear::RoundingErrors e = errors.e;
  const float* gamma = bn.gamma;
  const double *invstd = bn.save_invstd, *z = normalized.get();
  const double numerator = finite_total(ex, m * n, [=] NB_HD(std::int64_t i) {
    const double s = double(scale[0]), c = s * double(gamma[i % n]) * invstd[i % n];
    double term = c * c * e.squared(i / n, i % n);
    if (z) term += s * s * z[i] * z[i];
    return y[i] * y[i] * term;
  });
  BatchNormPipelineAmplifications out;
  out.y = linear::relative_amplification(numerator, sum_of_squares(ex, y, m * n));
  out.statistics =
      linear::batchnorm_statistic_amplifications(shape_of(lin, bn), statistic_sums(ex, lin, e, g.get(), bn));
  return out;
}

template <class Ex>
GroupMinimumConditions gemm_gn_min_bias(Ex& ex, const LinearOperands& lin, std::int64_t groups, const float* gamma,
                                        const float* beta, const float* add_bias, double eps, double* y) {
  using namespace pipeline_steps;
  const std::int64_t m = lin.m, n = lin.n, size = n / groups;
  const Scratch<double> g = linear(ex, lin.x, lin.w, lin.b, m, n, lin.k);
  // h before the normalization overwrites it, where its own rounding is the error (bf16).
  Scratch<double> h_values;
  if (lin.rounds_output) h_values = copy_of(ex, g.get(), m * n);
  const Scratch<double> invstds = ex.template scratch<double>(m * groups);
  double* z = g.get();
  GroupMinimumConditions out;
  out.condition = groupnorm_in_place(ex, z, m * groups, size, n, gamma, beta, eps, invstds.get());
  const Scratch<double> minima = slice_reduce(
      ex, m, n, INFINITY, [=] NB_HD(std::int64_t row, std::int64_t j) { return z[row * n + j]; }, NanMin{});
  const double* mn = minima.get();
  ex.each(n * m, [=] NB_HD(std::int64_t i) { y[i] = mn[i % m] + double(add_bias[i / m]); });
  // Each row's first column holding its minimum (infinite where the minimum is NaN), and the error
  // that column's element carries into the row's N outputs.
  const Scratch<double> firsts = slice_reduce(
      ex, m, n, INFINITY,
      [=] NB_HD(std::int64_t row, std::int64_t j) { return z[row * n + j] == mn[row] ? double(j) : INFINITY; },
      Smaller{});
  const ExecutorRoundingErrors errors = rounding_errors(ex, lin, nullptr, h_values.get());
  const linear::RoundingErrors e = errors.e;
  const double *first = firsts.get(), *invstd = invstds.get();
  const double numerator = finite_total(ex, m, [=] NB_HD(std::int64_t r) {
    if (!portable::is_finite(first[r])) return 0.0;
    const std::int64_t j = std::int64_t(first[r]);
    const double c = double(gamma[j]) * invstd[r * groups + j / size];
    return c * c * e.squared(r, j);
  });
  out.operand_amplification = linear::relative_amplification(double(n) * numerator, sum_of_squares(ex, y, n * m));
  return out;
}

#define NB_INSTANTIATE(Ex)                                                                                            \
  template BatchNormPipelineAmplifications gemm_scale_bn<Ex>(Ex&, const LinearOperands&, const float*,                 \
                                                             const BatchNormColumns&, double*);                       \
  template BatchNormPipelineAmplifications gemm_bn_scale_softmax<Ex>(Ex&, const LinearOperands&, const float*,         \
                                                                     const BatchNormColumns&, double*);               \
  template GroupMinimumConditions gemm_gn_min_bias<Ex>(Ex&, const LinearOperands&, std::int64_t, const float*,           \
                                                       const float*, const float*, double, double*);
NB_INSTANTIATE(DeviceExecutor)
NB_INSTANTIATE(HostExecutor)
#undef NB_INSTANTIATE

}  // namespace nb::gpu
