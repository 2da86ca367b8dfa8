#pragma once
// gemm_scale_bn_bwd computed in float32 arithmetic on the CPU, as a straightforward kernel would:
// fp32 column sums in row order, fp32 dh and dg, Eigen's float GEMMs, optionally with the GEMM
// operands rounded (to tf32: a kernel on tensor cores; to bf16: one passed off as tf32) or with
// one planted fault. The tolerance
// tests judge it against the float64 reference with the op's real tolerances.
#include <Eigen/Core>
#include <cmath>
#include <cstdint>

#include "kernels/gemm_pipelines/linear_shape.hpp"
#include "kernels/gemm_pipelines/gemm_scale_bn_bwd/backward.hpp"
#include "operand_rounding.hpp"
#include "reference_trial.hpp"

namespace nb::test {

enum class BackwardFault {
  none,
  unbiased_variance,   // dgamma from xhat * sqrt((M-1)/M): the unbiased variance where the biased belongs
  scale_dropped,       // dg = dh: s missing from dx, dW and db
  dweight_transposed,  // dW written as (K, N)
  mean_term_dropped,   // dh = gamma * invstd * dy: the inference backward
};

// `round_operands` (operand_rounding.hpp), where given, rounds dg, W and x before the GEMMs.
inline HostTensors fp32_backward(const ReferenceTrial& t, BackwardFault fault, float (*round_operands)(float) = nullptr) {
  using namespace gemm_scale_bn_bwd;
  using MatrixF = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const linear::Shape s = linear::shape_of(t.p);
  const auto& in = t.in;
  const std::int64_t m = s.m, n = s.n, k = s.k;
  const float inv_m = 1.0f / float(m);
  const float variance_factor = fault == BackwardFault::unbiased_variance ? std::sqrt(float(m - 1) / float(m)) : 1.0f;
  const auto xhat = [&](std::int64_t r, std::int64_t c) {
    return (in[kG][std::size_t(r * n + c)] * in[kScale][std::size_t(c)] - in[kSaveMean][std::size_t(c)]) *
           in[kSaveInvstd][std::size_t(c)];
  };
  HostTensors out = allocate_host_results(t.decls);
  MatrixF dh(m, n), dg(m, n);
  for (std::int64_t c = 0; c < n; ++c) {
    float dbeta = 0, dgamma = 0;
    for (std::int64_t r = 0; r < m; ++r) {
      dbeta += in[kDy][std::size_t(r * n + c)];
      dgamma += in[kDy][std::size_t(r * n + c)] * xhat(r, c) * variance_factor;
    }
    const float gi = in[kGamma][std::size_t(c)] * in[kSaveInvstd][std::size_t(c)];
    const float scale = fault == BackwardFault::scale_dropped ? 1.0f : in[kScale][std::size_t(c)];
    float dscale = 0, dbias = 0;
    for (std::int64_t r = 0; r < m; ++r) {
      const float dy = in[kDy][std::size_t(r * n + c)];
      dh(r, c) = fault == BackwardFault::mean_term_dropped ? gi * dy
                                                           : gi * (dy - dbeta * inv_m - xhat(r, c) * dgamma * inv_m);
      dg(r, c) = dh(r, c) * scale;
      dscale += dh(r, c) * in[kG][std::size_t(r * n + c)];
      dbias += dg(r, c);
    }
    out[kDbeta][std::size_t(c)] = dbeta, out[kDgamma][std::size_t(c)] = dgamma;
    out[kDscale][std::size_t(c)] = dscale, out[kDbias][std::size_t(c)] = dbias;
  }
  MatrixF w = Eigen::Map<const MatrixF>(in[kWeight].data(), n, k), x = Eigen::Map<const MatrixF>(in[kX].data(), m, k);
  if (round_operands)
    for (MatrixF* a : {&dg, &w, &x}) *a = a->unaryExpr(round_operands);
  Eigen::Map<MatrixF>(out[kDx].data(), m, k).noalias() = dg * w;
  const MatrixF dweight = dg.transpose() * x;
  if (fault == BackwardFault::dweight_transposed)
    Eigen::Map<MatrixF>(out[kDweight].data(), k, n) = dweight.transpose();
  else
    Eigen::Map<MatrixF>(out[kDweight].data(), n, k) = dweight;
  return out;
}

}  // namespace nb::test
