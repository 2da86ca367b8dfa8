#pragma once
// Float64 reference of gemm_scale_bn_bwd (kernels/gemm_pipelines/gemm_scale_bn_bwd/backward.hpp): autograd's
// formulas written plainly, from dy and the forward's saved tensors. Column sums over the M rows
// (dbeta, dgamma, then ds, db), dh per element, and the two GEMMs of the linear layer's backward
// (dx = dg W, dW = dg^T x) in Eigen, row blocks on every core. The inputs may be float (the op's
// tensors) or double (exact saved statistics, for the finite-difference test).
#include <cstdint>
#include <vector>

#include "harness/parallel.hpp"
#include "baselines/shapes/linear_shape.hpp"

namespace nb::linear {

// What the backward reads, in the order of backward.hpp's tensors.
template <class T>
struct BackwardInputs {
  const T *x, *weight, *scale, *gamma, *g, *save_mean, *save_invstd, *dy;
};

struct BackwardOutputs {
  double *dx, *dweight, *dbias, *dscale, *dgamma, *dbeta;
};

// For every column c of an (m, n) row-major matrix, sum over the rows of term(r, c); columns are
// split across cores and each is summed in row order.
template <class Term>
std::vector<double> column_sums(std::int64_t m, std::int64_t n, const Term& term) {
  std::vector<double> sum(std::size_t(n), 0.0);
  parallel_for(n, [&](std::int64_t c0, std::int64_t c1) {
    for (std::int64_t r = 0; r < m; ++r)
      for (std::int64_t c = c0; c < c1; ++c) sum[std::size_t(c)] += term(r, c);
  }, 8);
  return sum;
}

// xhat = (g * s - mean) * invstd of element (r, c), from the saved statistics.
template <class T>
double normalized(const Shape& s, const BackwardInputs<T>& in, std::int64_t r, std::int64_t c) {
  return (double(in.g[r * s.n + c]) * double(in.scale[c]) - double(in.save_mean[c])) * double(in.save_invstd[c]);
}

// dh = gamma * invstd * (dy - dbeta / M - xhat * dgamma / M), (s.m, N) row-major: the gradient of
// the BatchNorm input h = g * s, given the column sums dbeta and dgamma over a batch of M = `batch`
// rows (s.m for the whole batch; more where `in` holds some of its rows).
template <class T>
std::vector<double> batchnorm_input_gradient(const Shape& s, const BackwardInputs<T>& in, const double* dbeta,
                                             const double* dgamma, std::int64_t batch);

// The six gradients; without dx where out.dx is null (the audit's columns, which hold too few
// columns of dg for it).
template <class T>
void backward_reference(const Shape& s, const BackwardInputs<T>& in, const BackwardOutputs& out);

// dx of the s.m rows that `in` holds of a batch of `batch` rows, from that batch's column sums
// dbeta and dgamma: dh as batchnorm_input_gradient, dg = dh * s, dx = dg W (the audit's rows).
void input_gradient_of_rows(const Shape& s, std::int64_t batch, const BackwardInputs<float>& in, const double* dbeta,
                            const double* dgamma, double* dx);

// The batch statistics the forward saves: mean and 1 / sqrt(biased var + eps) of h = g * s per
// column, in float64.
struct ColumnStatistics {
  std::vector<double> mean, invstd;
};
ColumnStatistics batch_statistics(const Shape& s, const float* g, const float* scale);

}  // namespace nb::linear
