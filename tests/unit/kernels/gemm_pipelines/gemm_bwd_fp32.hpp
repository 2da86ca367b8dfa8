#pragma once
// gemm_scale_bn_bwd computed in float32 arithmetic on the CPU, as a straightforward kernel would:
// fp32 column sums in row order, fp32 dh and dg, Eigen's float GEMMs, optionally with the GEMM
// operands rounded (to tf32: a kernel on tensor cores; to bf16: autocast's dg, or a bf16 kernel
// passed off as tf32), the GEMMs summed in bf16, or one planted fault. The tolerance tests judge
// it against the float64 reference with the op's real tolerances (helpers at the end).
#include <gtest/gtest.h>

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/validation/compare.hpp"
#include "harness/validation/trial_tolerance.hpp"
#include "kernels/gemm_pipelines/linear_shape.hpp"
#include "kernels/gemm_pipelines/gemm_scale_bn_bwd/backward.hpp"
#include "kernels/ops.hpp"
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

// How the emulation rounds beyond fp32 arithmetic. `round_operands` (operand_rounding.hpp), where
// given, rounds dg, W and x before the GEMMs (and before db with `dbias_of_rounded_dg`: autocast
// sums the bf16 dg); `bf16_gemm_sums` rounds each GEMM's running sum to bf16 after every product
// (a kernel that accumulates below the problem's contract).
struct BackwardArithmetic {
  float (*round_operands)(float) = nullptr;
  bool dbias_of_rounded_dg = false;
  bool bf16_gemm_sums = false;
};

// c (rows, cols) = a (rows, depth) b (depth, cols), each running sum rounded to bf16 after every
// product.
template <class Matrix>
Matrix bf16_summed_product(const Matrix& a, const Matrix& b) {
  Matrix c(a.rows(), b.cols());
  for (Eigen::Index i = 0; i < a.rows(); ++i)
    for (Eigen::Index j = 0; j < b.cols(); ++j) {
      float sum = 0.0f;
      for (Eigen::Index q = 0; q < a.cols(); ++q) sum = to_bf16(std::fma(a(i, q), b(q, j), sum));
      c(i, j) = sum;
    }
  return c;
}

inline HostTensors fp32_backward(const ReferenceTrial& t, BackwardFault fault, const BackwardArithmetic& arithmetic) {
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
      dbias += arithmetic.dbias_of_rounded_dg ? arithmetic.round_operands(dg(r, c)) : dg(r, c);
    }
    out[kDbeta][std::size_t(c)] = dbeta, out[kDgamma][std::size_t(c)] = dgamma;
    out[kDscale][std::size_t(c)] = dscale, out[kDbias][std::size_t(c)] = dbias;
  }
  MatrixF w = Eigen::Map<const MatrixF>(in[kWeight].data(), n, k), x = Eigen::Map<const MatrixF>(in[kX].data(), m, k);
  if (arithmetic.round_operands)
    for (MatrixF* a : {&dg, &w, &x}) *a = a->unaryExpr(arithmetic.round_operands);
  const MatrixF dg_t = dg.transpose();
  Eigen::Map<MatrixF>(out[kDx].data(), m, k) = arithmetic.bf16_gemm_sums ? bf16_summed_product(dg, w) : MatrixF(dg * w);
  const MatrixF dweight = arithmetic.bf16_gemm_sums ? bf16_summed_product(dg_t, x) : MatrixF(dg_t * x);
  if (fault == BackwardFault::dweight_transposed)
    Eigen::Map<MatrixF>(out[kDweight].data(), k, n) = dweight.transpose();
  else
    Eigen::Map<MatrixF>(out[kDweight].data(), n, k) = dweight;
  return out;
}

inline const char* fault_name(BackwardFault f) {
  switch (f) {
    case BackwardFault::none: return "none";
    case BackwardFault::unbiased_variance: return "unbiased_variance";
    case BackwardFault::scale_dropped: return "scale_dropped";
    case BackwardFault::dweight_transposed: return "dweight_transposed";
    case BackwardFault::mean_term_dropped: return "mean_term_dropped";
  }
  return "?";
}

inline constexpr BackwardFault kFaults[] = {BackwardFault::unbiased_variance, BackwardFault::scale_dropped,
                                     BackwardFault::dweight_transposed, BackwardFault::mean_term_dropped};

// Where a fault cannot show, and why (docs/tolerance.md has the measured ratios):
// - special: a NaN or Inf in a row of x makes every column's statistics NaN, so every gradient
//   but dbeta is NaN by contract, and a fault keeps the NaNs where they are;
// - offset and tiny_var: x's columns sit at 1e4 (1e3) times their spread, so dW = dg^T x cancels
//   by that much and its bound (the GEMM ratio times the normalization's condition, both ~1e4 or
//   ~1e3) is above 1: a transposed dW passes, and an error of 1/(2M) in dgamma (the unbiased
//   variance) is under the normalization's condition except at M = 2; at M = 2 on offset the
//   dropped scale stays under dx's bound, widened by the condition of two close values.
inline bool fault_can_show(BackwardFault f, Distribution d, std::int64_t m) {
  if (d == Distribution::special) return false;
  if (d != Distribution::offset && d != Distribution::tiny_var) return true;
  switch (f) {
    case BackwardFault::dweight_transposed: return false;
    case BackwardFault::unbiased_variance: return d == Distribution::tiny_var && m == 2;
    case BackwardFault::scale_dropped: return !(d == Distribution::offset && m == 2);
    default: return true;
  }
}

// Every planted fault computed by `backward(trial, fault)` lands beyond its bound on each quick
// problem of `precision`, each distribution it counts and seeds 1 to 3, wherever fault_can_show
// says the fault can show.
template <class Backward>
void expect_planted_faults_fail(const OpSpec& op, DType precision, Backward backward);

// `round_operands`, where given, rounds dg, W and x before the GEMMs.
inline HostTensors fp32_backward(const ReferenceTrial& t, BackwardFault fault, float (*round_operands)(float) = nullptr) {
  return fp32_backward(t, fault, BackwardArithmetic{round_operands});
}

// ---- what the backward's tolerance tests share ----------------------------------------------

inline std::unique_ptr<OpSpec> backward_op() {
  for (auto& op : make_ops())
    if (op->name() == "gemm_scale_bn_bwd") return std::move(op);
  throw std::logic_error("no op gemm_scale_bn_bwd");
}

inline constexpr int kOutputs[] = {gemm_scale_bn_bwd::kDx,     gemm_scale_bn_bwd::kDweight, gemm_scale_bn_bwd::kDbias,
                                   gemm_scale_bn_bwd::kDscale, gemm_scale_bn_bwd::kDgamma,  gemm_scale_bn_bwd::kDbeta};

// How far each output of `out` lands from its bound with the op's real tolerances: the larger of
// normwise / bound and elementwise / bound (above 1 fails; infinite for misplaced NaN/Inf).
inline std::vector<double> bound_ratios(const OpSpec& op, const ReferenceTrial& t, const HostTensors& out) {
  const TrialTolerances tol = trial_tolerances(op, t.p, t.decls, t.in, t.ref);
  std::vector<double> ratios(t.decls.size(), 0.0);
  for (int i : kOutputs) {
    const Tolerance& b = tol.per_tensor[std::size_t(i)];
    const TensorErrors e = compare_tensor(t.decls[std::size_t(i)].name, out[i], t.ref[i], b);
    ratios[std::size_t(i)] = e.unwritten || e.nonfinite_mismatch
                                 ? INFINITY
                                 : std::max(e.normwise / b.normwise, e.elementwise / b.elementwise);
  }
  return ratios;
}

inline std::vector<Distribution> validated_distributions(const OpSpec& op, const Problem& p) {
  std::vector<Distribution> out;
  for (Distribution d : all_distributions()) {
    bool stress = false;
    for (const StressDistribution& s : op.stress(p)) stress = stress || s.distribution == d;
    if (!stress) out.push_back(d);
  }
  return out;
}

// The saved statistics are the float64 batch mean and 1 / sqrt(biased var + eps) of g * s over
// the rows, from the saved g as stored (eps 1e-5).
inline void expect_statistics_of_saved_g(const ReferenceTrial& t, std::int64_t m, std::int64_t n) {
  using namespace gemm_scale_bn_bwd;
  for (std::int64_t c = 0; c < n; ++c) {
    const auto h = [&](std::int64_t r) { return double(t.in[kG][std::size_t(r * n + c)]) * t.in[kScale][std::size_t(c)]; };
    double sum = 0, sq = 0;
    for (std::int64_t r = 0; r < m; ++r) sum += h(r);
    const double mean = sum / double(m);
    for (std::int64_t r = 0; r < m; ++r) sq += (h(r) - mean) * (h(r) - mean);
    EXPECT_EQ(t.in[kSaveMean][std::size_t(c)], float(mean));
    EXPECT_NEAR(t.in[kSaveInvstd][std::size_t(c)], 1.0 / std::sqrt(sq / double(m) + 1e-5),
                1e-6 / std::sqrt(sq / double(m)));
  }
}

inline double worst_ratio(const std::vector<double>& ratios) { return *std::max_element(ratios.begin(), ratios.end()); }

template <class Backward>
void expect_planted_faults_fail(const OpSpec& op, DType precision, Backward backward) {
  for (const Problem& p : op.problems_in("quick")) {
    if (p.dtype != precision) continue;
    for (Distribution d : validated_distributions(op, p))
      for (std::uint64_t seed : {1, 2, 3}) {
        const ReferenceTrial t = reference_trial(op, p, d, seed);
        for (BackwardFault f : kFaults) {
          if (!fault_can_show(f, d, p.dim("m"))) continue;
          SCOPED_TRACE(p.id() + " " + distribution_name(d) + " seed " + std::to_string(seed) + " " + fault_name(f));
          EXPECT_GT(worst_ratio(bound_ratios(op, t, backward(t, f))), 1.0);
        }
      }
  }
}

}  // namespace nb::test
