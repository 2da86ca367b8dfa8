#include "baselines/cpu/gemm_pipeline_reference.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>

#include "harness/parallel.hpp"

namespace nb::linear {
namespace {

using MatrixD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using MapF = Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;
using ColumnBlock = Eigen::Map<MatrixD, 0, Eigen::OuterStride<>>;  // columns of a row-major matrix, in place

// A row-major fp32 matrix widened to double, rows converted on every core.
MatrixD widen(const float* src, std::int64_t rows, std::int64_t cols) {
  MatrixD out(rows, cols);
  parallel_for(rows, [&](std::int64_t r0, std::int64_t r1) {
    out.middleRows(r0, r1 - r0) = MapF(src + r0 * cols, r1 - r0, cols).cast<double>();
  }, 16);
  return out;
}

}  // namespace

std::vector<double> linear_reference(const Shape& s, const float* x, const float* w, const float* b) {
  std::vector<double> g(std::size_t(s.m * s.n));
  // The cores split the larger of M and N: the smaller operand is widened to double once and
  // shared, the larger one block by block in each worker, which runs Eigen's single-threaded GEMM
  // on its block (the audit's few rows of a large W, or its few columns of a large x, read once).
  if (s.m >= s.n) {
    const MatrixD wd = widen(w, s.n, s.k);
    parallel_for(s.m, [&](std::int64_t r0, std::int64_t r1) {
      const MatrixD xd = MapF(x + r0 * s.k, r1 - r0, s.k).cast<double>();
      Eigen::Map<MatrixD>(g.data() + r0 * s.n, r1 - r0, s.n).noalias() = xd * wd.transpose();
    }, 8);
  } else {
    const MatrixD xd = widen(x, s.m, s.k);
    parallel_for(s.n, [&](std::int64_t c0, std::int64_t c1) {
      const MatrixD wd = MapF(w + c0 * s.k, c1 - c0, s.k).cast<double>();
      ColumnBlock(g.data() + c0, s.m, c1 - c0, Eigen::OuterStride<>(s.n)).noalias() = xd * wd.transpose();
    }, 8);
  }
  parallel_for(s.m, [&](std::int64_t r0, std::int64_t r1) {
    for (std::int64_t r = r0; r < r1; ++r)
      for (std::int64_t c = 0; c < s.n; ++c) g[std::size_t(r * s.n + c)] += double(b[c]);
  }, 8);
  return g;
}

void batchnorm_columns(const Shape& s, std::vector<double>& h, const float* gamma, const float* beta,
                       const float* running_mean, const float* running_var, const BatchNormOutputs& out) {
  parallel_for(s.n, [&](std::int64_t c0, std::int64_t c1) {
    const std::int64_t w = c1 - c0;
    std::vector<double> mean(std::size_t(w), 0.0), sq(std::size_t(w), 0.0);
    for (std::int64_t r = 0; r < s.m; ++r)
      for (std::int64_t c = c0; c < c1; ++c) mean[std::size_t(c - c0)] += h[std::size_t(r * s.n + c)];
    for (auto& v : mean) v /= double(s.m);
    for (std::int64_t r = 0; r < s.m; ++r)
      for (std::int64_t c = c0; c < c1; ++c) {
        const double d = h[std::size_t(r * s.n + c)] - mean[std::size_t(c - c0)];
        sq[std::size_t(c - c0)] += d * d;
      }
    for (std::int64_t c = c0; c < c1; ++c) {
      const double mu = mean[std::size_t(c - c0)], var = sq[std::size_t(c - c0)] / double(s.m);
      const double invstd = 1.0 / std::sqrt(var + s.eps);
      out.save_mean[c] = mu;
      out.save_invstd[c] = invstd;
      out.running_mean[c] = (1 - s.momentum) * double(running_mean[c]) + s.momentum * mu;
      out.running_var[c] = (1 - s.momentum) * double(running_var[c]) + s.momentum * var * s.unbias();
    }
  }, 8);
  normalize_columns(s, h, out.save_mean, out.save_invstd, gamma, beta);
}

void normalize_columns(const Shape& s, std::vector<double>& h, const double* mean, const double* invstd,
                       const float* gamma, const float* beta) {
  parallel_for(s.m, [&](std::int64_t r0, std::int64_t r1) {
    for (std::int64_t r = r0; r < r1; ++r)
      for (std::int64_t c = 0; c < s.n; ++c) {
        double& v = h[std::size_t(r * s.n + c)];
        v = (v - mean[c]) * invstd[c] * double(gamma[c]) + double(beta[c]);
      }
  }, 8);
}

double groupnorm_rows(const Shape& s, std::vector<double>& g, const float* gamma, const float* beta,
                      double* invstd_out) {
  const std::int64_t size = s.group_size();
  std::vector<double> worst(std::size_t(s.m), 1.0);
  parallel_for(s.m, [&](std::int64_t r0, std::int64_t r1) {
    for (std::int64_t r = r0; r < r1; ++r)
      for (std::int64_t c0 = 0; c0 < s.n; c0 += size) {
        double* v = g.data() + r * s.n + c0;
        double mean = 0, sq = 0;
        for (std::int64_t i = 0; i < size; ++i) mean += v[i];
        mean /= double(size);
        for (std::int64_t i = 0; i < size; ++i) sq += (v[i] - mean) * (v[i] - mean);
        const double invstd = 1.0 / std::sqrt(sq / double(size) + s.eps);
        if (invstd_out) invstd_out[r * s.groups + c0 / size] = invstd;
        if (std::isfinite(mean * invstd))
          worst[std::size_t(r)] = std::max(worst[std::size_t(r)], std::sqrt(1.0 + mean * invstd * mean * invstd));
        for (std::int64_t i = 0; i < size; ++i)
          v[i] = (v[i] - mean) * invstd * double(gamma[c0 + i]) + double(beta[c0 + i]);
      }
  }, 4);
  return std::min(1e5, *std::max_element(worst.begin(), worst.end()));
}

void softmax_rows(const Shape& s, std::vector<double>& z) {
  parallel_for(s.m, [&](std::int64_t r0, std::int64_t r1) {
    for (std::int64_t r = r0; r < r1; ++r) {
      double* v = z.data() + r * s.n;
      double mx = -INFINITY, sum = 0;
      for (std::int64_t c = 0; c < s.n; ++c) mx = std::max(mx, v[c]);
      for (std::int64_t c = 0; c < s.n; ++c) sum += std::exp(v[c] - mx);
      for (std::int64_t c = 0; c < s.n; ++c) v[c] = std::exp(v[c] - mx) / sum;
    }
  }, 4);
}

double column_condition(const double* save_mean, const double* save_invstd, std::int64_t n) {
  double worst = 1.0;
  for (std::int64_t c = 0; c < n; ++c) {
    const double r = save_mean[c] * save_invstd[c];
    if (std::isfinite(r)) worst = std::max(worst, std::sqrt(1.0 + r * r));
  }
  return std::min(worst, 1e5);
}

}  // namespace nb::linear
