#include "baselines/gpu/gemm_bwd_references.hpp"

#include <cmath>
#include <numeric>
#include <vector>

#include "baselines/gpu/linear_reference.hpp"
#include "harness/validation/device_executor.cuh"
#include "harness/validation/host_executor.hpp"
#include "harness/validation/slice_reduce.cuh"

namespace nb::gpu {
namespace {

// xhat = (g * s - mean) * invstd of element (r, c), from the saved statistics (linear::normalized).
NB_HD inline double normalized(const GemmBwdInputs& in, std::int64_t r, std::int64_t c) {
  return (double(in.g[r * in.n + c]) * double(in.scale[c]) - double(in.save_mean[c])) * double(in.save_invstd[c]);
}

// The terms the backward sums, at element (r, c) of the (m, n) tensors.
struct Dy {
  GemmBwdInputs in;
  NB_HD double operator()(std::int64_t r, std::int64_t c) const { return double(in.dy[r * in.n + c]); }
};
struct DyXhat {
  GemmBwdInputs in;
  NB_HD double operator()(std::int64_t r, std::int64_t c) const {
    return double(in.dy[r * in.n + c]) * normalized(in, r, c);
  }
};
// dh = gamma * invstd * (dy - dbeta / M - xhat * dgamma / M), from the column sums dbeta and dgamma
// (linear::batchnorm_input_gradient).
struct InputGradient {
  GemmBwdInputs in;
  const double *dbeta, *dgamma;
  NB_HD double operator()(std::int64_t r, std::int64_t c) const {
    const double inv_m = 1.0 / double(in.m);
    const double dy = double(in.dy[r * in.n + c]), xhat = normalized(in, r, c);
    return double(in.gamma[c]) * double(in.save_invstd[c]) * (dy - dbeta[c] * inv_m - xhat * dgamma[c] * inv_m);
  }
};
// dh * g (ds's terms) and dh * s (dg, db's terms).
struct DhTimesG {
  InputGradient dh;
  NB_HD double operator()(std::int64_t r, std::int64_t c) const { return dh(r, c) * double(dh.in.g[r * dh.in.n + c]); }
};
struct DhTimesScale {
  InputGradient dh;
  NB_HD double operator()(std::int64_t r, std::int64_t c) const { return dh(r, c) * double(dh.in.scale[c]); }
};
// dg^2 as the conditions write it: dh^2 s^2.
struct DgSquared {
  InputGradient dh;
  NB_HD double operator()(std::int64_t r, std::int64_t c) const {
    const double d = dh(r, c), s = double(dh.in.scale[c]);
    return d * d * s * s;
  }
};
// t^2, t = s gamma invstd dy: the leading term of each element of dg.
struct LeadingTermSquared {
  GemmBwdInputs in;
  NB_HD double operator()(std::int64_t r, std::int64_t c) const {
    const double dy = double(in.dy[r * in.n + c]);
    const double t = double(in.scale[c]) * double(in.gamma[c]) * double(in.save_invstd[c]) * dy;
    return t * t;
  }
};
// |term|, for the conditions' scales.
template <class Term>
struct Magnitude {
  Term term;
  NB_HD double operator()(std::int64_t r, std::int64_t c) const { return fabs(term(r, c)); }
};

// sum_r term(r, c) for each of the n columns, and sum_c term(r, c) for each of the m rows.
template <class Ex, class Term>
Scratch<double> column_sums(Ex& ex, std::int64_t m, std::int64_t n, Term term) {
  return slice_sums(ex, n, m, [=] NB_HD(std::int64_t c, std::int64_t r) { return term(r, c); });
}
template <class Ex, class Term>
Scratch<double> row_sums(Ex& ex, std::int64_t m, std::int64_t n, Term term) {
  return slice_sums(ex, m, n, term);
}

template <class Ex>
void copy(Ex& ex, const Scratch<double>& from, double* to, std::int64_t n) {
  const double* f = from.get();
  ex.each(n, [=] NB_HD(std::int64_t i) { to[i] = f[i]; });
}

// The sums of term over each column or row, on the host.
template <class Ex, class Term>
std::vector<double> host_column_sums(Ex& ex, std::int64_t m, std::int64_t n, Term term) {
  return ex.to_host(column_sums(ex, m, n, term).get(), n);
}
template <class Ex, class Term>
std::vector<double> host_row_sums(Ex& ex, std::int64_t m, std::int64_t n, Term term) {
  return ex.to_host(row_sums(ex, m, n, term).get(), m);
}

// The sum of v^2 over each row of a (rows, cols) stored matrix, on the host.
template <class Ex>
std::vector<double> row_squares(Ex& ex, stored::Tensor v, std::int64_t rows, std::int64_t cols) {
  return host_row_sums(ex, rows, cols, [=] NB_HD(std::int64_t r, std::int64_t c) {
    return double(v[r * cols + c]) * double(v[r * cols + c]);
  });
}

double sum(const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0); }

// ||v|| of n values on the executor's side, finished in index order as the host's (linear::norm).
template <class Ex>
double norm_of(Ex& ex, const double* v, std::int64_t n) {
  const std::vector<double> values = ex.to_host(v, n);
  return linear::norm(values.data(), n);
}

// ||v|| of a (rows, cols) float64 matrix: the squares summed per row, then the rows in order.
template <class Ex>
double matrix_norm(Ex& ex, const double* v, std::int64_t rows, std::int64_t cols) {
  return std::sqrt(sum(host_row_sums(ex, rows, cols, [=] NB_HD(std::int64_t r, std::int64_t c) {
    return v[r * cols + c] * v[r * cols + c];
  })));
}

// ||A|| over ||T|| of a column sum T whose terms are term(r, c), A its sums of |term|.
template <class Ex, class Term>
linear::NormRatio column_sum_norms(Ex& ex, const GemmBwdInputs& in, Term term, const double* result) {
  const std::vector<double> magnitudes = host_column_sums(ex, in.m, in.n, Magnitude<Term>{term});
  return {linear::norm(magnitudes.data(), in.n), norm_of(ex, result, in.n)};
}

}  // namespace

template <class Ex>
void forward_saved(Ex& ex, const ForwardOperands& forward, const ForwardSaved& saved) {
  const std::int64_t m = forward.m, n = forward.n;
  const Scratch<float> biases = ex.template scratch<float>(n);
  float* bias = biases.get();
  const InputDraw draw = forward.bias;
  const std::uint64_t seed = forward.seed;
  ex.each(n, [=] NB_HD(std::int64_t c) { bias[c] = draw.value(seed, std::uint64_t(c), DType::f32); });
  {
    const Scratch<double> linear_output =
        linear(ex, forward.x, forward.weight, stored::Tensor{bias, DType::f32}, m, n, forward.k);
    const double* g = linear_output.get();
    const stored::MutableTensor g_saved = saved.g;
    ex.each(m * n, [=] NB_HD(std::int64_t i) { g_saved.set(i, float(g[i])); });
  }
  // The statistics of h = g * s from the saved (rounded) g, as linear::batch_statistics.
  const stored::Tensor g{saved.g.data, saved.g.type};
  const float* scale = forward.scale;
  const auto h = [=] NB_HD(std::int64_t r, std::int64_t c) { return double(g[r * n + c]) * double(scale[c]); };
  const Scratch<double> sums = column_sums(ex, m, n, h);
  double* mean = sums.get();
  ex.each(n, [=] NB_HD(std::int64_t c) { mean[c] /= double(m); });
  const Scratch<double> deviations = column_sums(ex, m, n, [=] NB_HD(std::int64_t r, std::int64_t c) {
    const double d = h(r, c) - mean[c];
    return d * d;
  });
  const double* dev2 = deviations.get();
  float *save_mean = saved.save_mean, *save_invstd = saved.save_invstd;
  const double eps = forward.eps;
  ex.each(n, [=] NB_HD(std::int64_t c) {
    save_mean[c] = float(mean[c]);
    save_invstd[c] = float(1.0 / sqrt(dev2[c] / double(m) + eps));
  });
}

template <class Ex>
void gemm_scale_bn_backward(Ex& ex, const GemmBwdInputs& in, const GemmBwdGradients& out) {
  const std::int64_t m = in.m, n = in.n, k = in.k;
  copy(ex, column_sums(ex, m, n, Dy{in}), out.dbeta, n);
  copy(ex, column_sums(ex, m, n, DyXhat{in}), out.dgamma, n);
  const InputGradient input_gradient{in, out.dbeta, out.dgamma};
  const Scratch<double> gradient = ex.template scratch<double>(m * n);  // dh, then dg = dh * s in place
  double* d = gradient.get();
  ex.each(m * n, [=] NB_HD(std::int64_t i) { d[i] = input_gradient(i / n, i % n); });
  const stored::Tensor g = in.g;
  const float* scale = in.scale;
  const auto dh_times_g = [=] NB_HD(std::int64_t r, std::int64_t c) { return d[r * n + c] * double(g[r * n + c]); };
  copy(ex, column_sums(ex, m, n, dh_times_g), out.dscale, n);
  ex.each(m * n, [=] NB_HD(std::int64_t i) { d[i] *= double(scale[i % n]); });
  copy(ex, column_sums(ex, m, n, [=] NB_HD(std::int64_t r, std::int64_t c) { return d[r * n + c]; }), out.dbias, n);
  {
    const Scratch<double> weight = widened(ex, in.weight, n * k);
    ex.gemm({m, k, n, false, false}, d, weight.get(), out.dx);  // dx = dg W
  }
  const Scratch<double> x = widened(ex, in.x, m * k);
  ex.gemm({n, k, m, true, false}, d, x.get(), out.dweight);  // dW = dg^T x
}

template <class Ex>
linear::BackwardConditions gemm_scale_bn_backward_conditions(Ex& ex, const GemmBwdInputs& in,
                                                             const GemmBwdGradients& reference) {
  const std::int64_t m = in.m, n = in.n, k = in.k;
  const InputGradient dh{in, reference.dbeta, reference.dgamma};
  linear::BackwardNorms norms;
  norms.dbeta = column_sum_norms(ex, in, Dy{in}, reference.dbeta);
  norms.dgamma = column_sum_norms(ex, in, DyXhat{in}, reference.dgamma);
  norms.dscale = column_sum_norms(ex, in, DhTimesG{dh}, reference.dscale);
  norms.dbias = column_sum_norms(ex, in, DhTimesScale{dh}, reference.dbias);

  const std::vector<double> t_rows = host_row_sums(ex, m, n, LeadingTermSquared{in});
  const std::vector<double> t_columns = host_column_sums(ex, m, n, LeadingTermSquared{in});
  norms.dx = {std::sqrt(linear::dot(t_columns, row_squares(ex, in.weight, n, k))), matrix_norm(ex, reference.dx, m, k)};
  norms.dweight = {std::sqrt(linear::dot(t_rows, row_squares(ex, in.x, m, k))),
                   matrix_norm(ex, reference.dweight, n, k)};
  norms.dh = {std::sqrt(sum(t_rows)), std::sqrt(sum(host_row_sums(ex, m, n, DgSquared{dh})))};
  return linear::conditions_of(norms);
}

#define NB_INSTANTIATE(Ex)                                                                               \
  template void forward_saved<Ex>(Ex&, const ForwardOperands&, const ForwardSaved&);                     \
  template void gemm_scale_bn_backward<Ex>(Ex&, const GemmBwdInputs&, const GemmBwdGradients&);          \
  template linear::BackwardConditions gemm_scale_bn_backward_conditions<Ex>(Ex&, const GemmBwdInputs&, \
                                                                            const GemmBwdGradients&);
NB_INSTANTIATE(DeviceExecutor)
NB_INSTANTIATE(HostExecutor)
#undef NB_INSTANTIATE

}  // namespace nb::gpu
