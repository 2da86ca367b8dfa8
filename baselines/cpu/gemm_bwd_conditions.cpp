#include "baselines/cpu/gemm_bwd_conditions.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace nb::linear {
namespace {

double ratio(const NormRatio& r, double cap) {
  if (!std::isfinite(r.scale) || !std::isfinite(r.value)) return 1;
  if (r.value == 0) return r.scale == 0 ? 1 : cap;
  return std::clamp(r.scale / r.value, 1.0, cap);
}

double norm(const std::vector<double>& v) { return linear::norm(v.data(), std::int64_t(v.size())); }

// For every row r of an (m, n) row-major matrix, the sum of term(r, c) over its columns.
template <class Term>
std::vector<double> row_sums(std::int64_t m, std::int64_t n, const Term& term) {
  std::vector<double> out(std::size_t(m), 0.0);
  parallel_for(m, [&](std::int64_t r0, std::int64_t r1) {
    for (std::int64_t r = r0; r < r1; ++r)
      for (std::int64_t c = 0; c < n; ++c) out[std::size_t(r)] += term(r, c);
  }, 16);
  return out;
}

template <class T>
std::vector<double> row_squares(const T* v, std::int64_t rows, std::int64_t cols) {
  return row_sums(rows, cols, [&](std::int64_t r, std::int64_t c) { return double(v[r * cols + c]) * double(v[r * cols + c]); });
}

}  // namespace

double norm(const double* v, std::int64_t n) {
  double sum = 0;
  for (std::int64_t i = 0; i < n; ++i) sum += v[i] * v[i];
  return std::sqrt(sum);
}

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  return std::inner_product(a.begin(), a.end(), b.begin(), 0.0);
}

BackwardConditions conditions_of(const BackwardNorms& norms) {
  BackwardConditions k;
  k.dbeta = ratio(norms.dbeta, kMaxColumnSumCondition);
  k.dgamma = ratio(norms.dgamma, kMaxColumnSumCondition);
  k.dscale = ratio(norms.dscale, kMaxColumnSumCondition);
  k.dbias = ratio(norms.dbias, kMaxColumnSumCondition);
  k.dx = ratio(norms.dx, kMaxGemmCondition);
  k.dweight = ratio(norms.dweight, kMaxGemmCondition);
  k.dh = ratio(norms.dh, kMaxGemmCondition);
  return k;
}

BackwardConditions backward_conditions(const Shape& s, const BackwardInputs<float>& in, const BackwardGradients& ref) {
  const auto dy = [&](std::int64_t r, std::int64_t c) { return double(in.dy[r * s.n + c]); };
  // t = s gamma invstd dy: the leading term of each element of dg.
  const auto t = [&](std::int64_t r, std::int64_t c) {
    return double(in.scale[c]) * double(in.gamma[c]) * double(in.save_invstd[c]) * dy(r, c);
  };
  const std::vector<double> dh = batchnorm_input_gradient(s, in, ref.dbeta, ref.dgamma, s.m);
  const auto at = [&](std::int64_t r, std::int64_t c) { return std::size_t(r * s.n + c); };

  BackwardNorms norms;
  norms.dbeta = {norm(column_sums(s.m, s.n, [&](std::int64_t r, std::int64_t c) { return std::fabs(dy(r, c)); })),
                 norm(ref.dbeta, s.n)};
  norms.dgamma = {norm(column_sums(s.m, s.n, [&](std::int64_t r, std::int64_t c) {
                    return std::fabs(dy(r, c) * normalized(s, in, r, c));
                  })),
                  norm(ref.dgamma, s.n)};
  norms.dscale = {norm(column_sums(s.m, s.n, [&](std::int64_t r, std::int64_t c) {
                    return std::fabs(dh[at(r, c)] * double(in.g[r * s.n + c]));
                  })),
                  norm(ref.dscale, s.n)};
  norms.dbias = {norm(column_sums(s.m, s.n, [&](std::int64_t r, std::int64_t c) {
                   return std::fabs(dh[at(r, c)] * double(in.scale[c]));
                 })),
                 norm(ref.dbias, s.n)};

  const auto t_squared = [&](std::int64_t r, std::int64_t c) { return t(r, c) * t(r, c); };
  const std::vector<double> t_rows = row_sums(s.m, s.n, t_squared);
  norms.dx = {std::sqrt(dot(column_sums(s.m, s.n, t_squared), row_squares(in.weight, s.n, s.k))), norm(ref.dx, s.m * s.k)};
  norms.dweight = {std::sqrt(dot(t_rows, row_squares(in.x, s.m, s.k))), norm(ref.dweight, s.n * s.k)};

  const double terms = std::sqrt(std::accumulate(t_rows.begin(), t_rows.end(), 0.0));  // includes s, as dg does
  const std::vector<double> dg_rows = row_sums(s.m, s.n, [&](std::int64_t r, std::int64_t c) {
    return dh[at(r, c)] * dh[at(r, c)] * double(in.scale[c]) * double(in.scale[c]);
  });
  norms.dh = {terms, std::sqrt(std::accumulate(dg_rows.begin(), dg_rows.end(), 0.0))};
  return conditions_of(norms);
}

}  // namespace nb::linear
