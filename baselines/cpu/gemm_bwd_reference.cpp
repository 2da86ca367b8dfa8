#include "baselines/cpu/gemm_bwd_reference.hpp"

#include <Eigen/Core>
#include <cmath>

namespace nb::linear {
namespace {

using MatrixD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <class T>
using MapT = Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;

// A block of columns of a row-major double matrix, written in place.
using ColumnBlock = Eigen::Map<MatrixD, 0, Eigen::OuterStride<>>;

// dg = dh * s, (M, N) row-major.
template <class T>
MatrixD scaled_by_columns(const Shape& s, const std::vector<double>& dh, const T* scale) {
  MatrixD dg(s.m, s.n);
  parallel_for(s.m, [&](std::int64_t r0, std::int64_t r1) {
    for (std::int64_t r = r0; r < r1; ++r)
      for (std::int64_t c = 0; c < s.n; ++c) dg(r, c) = dh[std::size_t(r * s.n + c)] * double(scale[c]);
  }, 8);
  return dg;
}

// dx = dg W, columns of dx split over the cores: each worker widens its columns of W to double and
// runs Eigen's single-threaded GEMM on them, so W is read once however few rows dx has (the
// audit's rows).
template <class T>
void input_gradient_gemm(const Shape& s, const MatrixD& dg, const T* weight, double* dx) {
  parallel_for(s.k, [&](std::int64_t k0, std::int64_t k1) {
    const MatrixD w = MapT<T>(weight, s.n, s.k).middleCols(k0, k1 - k0).template cast<double>();
    ColumnBlock(dx + k0, s.m, k1 - k0, Eigen::OuterStride<>(s.k)).noalias() = dg * w;
  }, 64);
}

// dW = dg^T x, columns of dW split over the cores the same way: x is read once however few columns
// dg has (the audit's columns).
template <class T>
void weight_gradient_gemm(const Shape& s, const MatrixD& dg, const T* x, double* dweight) {
  parallel_for(s.k, [&](std::int64_t k0, std::int64_t k1) {
    const MatrixD xd = MapT<T>(x, s.m, s.k).middleCols(k0, k1 - k0).template cast<double>();
    ColumnBlock(dweight + k0, s.n, k1 - k0, Eigen::OuterStride<>(s.k)).noalias() = dg.transpose() * xd;
  }, 64);
}

}  // namespace

template <class T>
std::vector<double> batchnorm_input_gradient(const Shape& s, const BackwardInputs<T>& in, const double* dbeta,
                                             const double* dgamma, std::int64_t batch) {
  std::vector<double> dh(std::size_t(s.m * s.n));
  const double inv_m = 1.0 / double(batch);
  parallel_for(s.m, [&](std::int64_t r0, std::int64_t r1) {
    for (std::int64_t r = r0; r < r1; ++r)
      for (std::int64_t c = 0; c < s.n; ++c) {
        const double dy = double(in.dy[r * s.n + c]), xhat = normalized(s, in, r, c);
        dh[std::size_t(r * s.n + c)] = double(in.gamma[c]) * double(in.save_invstd[c]) *
                                       (dy - dbeta[c] * inv_m - xhat * dgamma[c] * inv_m);
      }
  }, 8);
  return dh;
}

template <class T>
void backward_reference(const Shape& s, const BackwardInputs<T>& in, const BackwardOutputs& out) {
  const std::vector<double> dbeta = column_sums(s.m, s.n, [&](std::int64_t r, std::int64_t c) {
    return double(in.dy[r * s.n + c]);
  });
  const std::vector<double> dgamma = column_sums(s.m, s.n, [&](std::int64_t r, std::int64_t c) {
    return double(in.dy[r * s.n + c]) * normalized(s, in, r, c);
  });
  const std::vector<double> dh = batchnorm_input_gradient(s, in, dbeta.data(), dgamma.data(), s.m);
  const std::vector<double> dscale = column_sums(s.m, s.n, [&](std::int64_t r, std::int64_t c) {
    return dh[std::size_t(r * s.n + c)] * double(in.g[r * s.n + c]);
  });
  const MatrixD dg = scaled_by_columns(s, dh, in.scale);
  const std::vector<double> dbias = column_sums(s.m, s.n, [&](std::int64_t r, std::int64_t c) { return dg(r, c); });
  for (std::int64_t c = 0; c < s.n; ++c) {
    out.dbeta[c] = dbeta[std::size_t(c)];
    out.dgamma[c] = dgamma[std::size_t(c)];
    out.dscale[c] = dscale[std::size_t(c)];
    out.dbias[c] = dbias[std::size_t(c)];
  }
  if (out.dx) input_gradient_gemm(s, dg, in.weight, out.dx);
  weight_gradient_gemm(s, dg, in.x, out.dweight);
}

void input_gradient_of_rows(const Shape& s, std::int64_t batch, const BackwardInputs<float>& in, const double* dbeta,
                            const double* dgamma, double* dx) {
  const std::vector<double> dh = batchnorm_input_gradient(s, in, dbeta, dgamma, batch);
  input_gradient_gemm(s, scaled_by_columns(s, dh, in.scale), in.weight, dx);
}

template std::vector<double> batchnorm_input_gradient(const Shape&, const BackwardInputs<float>&, const double*,
                                                      const double*, std::int64_t);
template std::vector<double> batchnorm_input_gradient(const Shape&, const BackwardInputs<double>&, const double*,
                                                      const double*, std::int64_t);
template void backward_reference(const Shape&, const BackwardInputs<float>&, const BackwardOutputs&);
template void backward_reference(const Shape&, const BackwardInputs<double>&, const BackwardOutputs&);

ColumnStatistics batch_statistics(const Shape& s, const float* g, const float* scale) {
  const auto h = [&](std::int64_t r, std::int64_t c) { return double(g[r * s.n + c]) * double(scale[c]); };
  ColumnStatistics st;
  st.mean = column_sums(s.m, s.n, h);
  for (double& v : st.mean) v /= double(s.m);
  st.invstd = column_sums(s.m, s.n, [&](std::int64_t r, std::int64_t c) {
    const double d = h(r, c) - st.mean[std::size_t(c)];
    return d * d;
  });
  for (double& v : st.invstd) v = 1.0 / std::sqrt(v / double(s.m) + s.eps);
  return st;
}

}  // namespace nb::linear
