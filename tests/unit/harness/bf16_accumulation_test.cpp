// A kernel which accumulates in bf16 fails at N = 8192: the bf16 tolerance (fp32 compute bound
// plus the rounding of the stored output) must not be loose enough to let a sum of squares kept
// in bf16 through. CPU simulations of rmsnorm_rows on the bf16 problem (m, 8192), judged with
// the harness's own trial tolerances and comparison: the sum of squares accumulated in bf16
// (every partial sum rounded to bf16), as one sequential loop per row and as a warp would (32
// lanes sum their strided elements, then a butterfly), must fail; the same simulations
// accumulating in fp32 must pass, so the test cannot pass vacuously.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "harness/narrow_float.hpp"
#include "harness/validation/compare.hpp"
#include "harness/validation/trial_tolerance.hpp"
#include "kernels/ops.hpp"
#include "kernels/rows/rmsnorm_rows/spec.hpp"

namespace nb {
namespace {

constexpr std::int64_t kRows = 32, kCols = 8192;

enum class Pattern { sequential, warp };

// The accumulator of one simulation: fp32, or bf16 (each partial sum rounded to bf16).
struct Accumulator {
  DType type;
  float add(float sum, float term) const { return round_to_storage(sum + term, type); }
};

// The row's sum of squares in the accumulator's type. The squares themselves are fp32 (a kernel
// converts x to fp32 before it squares): only the running sums are narrowed.
float sum_of_squares(const float* x, std::int64_t n, Pattern pattern, Accumulator acc) {
  if (pattern == Pattern::sequential) {
    float sum = 0;
    for (std::int64_t j = 0; j < n; ++j) sum = acc.add(sum, x[j] * x[j]);
    return sum;
  }
  float lane[32] = {};
  for (int l = 0; l < 32; ++l)
    for (std::int64_t j = l; j < n; j += 32) lane[l] = acc.add(lane[l], x[j] * x[j]);
  for (int offset = 16; offset > 0; offset /= 2) {  // xor butterfly: every lane ends with the total
    float next[32];
    for (int l = 0; l < 32; ++l) next[l] = acc.add(lane[l], lane[l ^ offset]);
    for (int l = 0; l < 32; ++l) lane[l] = next[l];
  }
  return lane[0];
}

// y = x * rsqrt(sum / n + eps) * w in fp32, stored as bf16.
std::vector<float> simulated_kernel(const HostTensors& in, float eps, Pattern pattern, Accumulator acc) {
  const std::vector<float>& x = in[rmsnorm_rows::X];
  const std::vector<float>& w = in[rmsnorm_rows::W];
  std::vector<float> y(x.size());
  for (std::int64_t r = 0; r < kRows; ++r) {
    const float* xr = x.data() + r * kCols;
    const float inv = 1.0f / std::sqrt(sum_of_squares(xr, kCols, pattern, acc) / kCols + eps);
    for (std::int64_t j = 0; j < kCols; ++j)
      y[r * kCols + j] = round_to_storage(xr[j] * inv * w[j], DType::bf16);
  }
  return y;
}

struct Verdict {
  bool passed = true;
  double normwise = 0, normwise_bound = 0, elementwise = 0, elementwise_bound = 0;  // the worst trial's
};

// Three trials (seeds), as the harness validates a small problem.
Verdict judge(Distribution d, Pattern pattern, Accumulator acc) {
  const auto op = make_rmsnorm_rows_op();
  const Problem p = op->make_problem({{"m", kRows}, {"n", kCols}}, DType::bf16);
  const std::vector<TensorDecl> decls = op->tensors(p);
  Verdict v;
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    HostTensors in = allocate_host_inputs(decls);
    draw_stored_inputs(*op, p, decls, d, seed, in);
    ReferenceTensors ref = allocate_references(decls);
    op->reference(p, in, ref);
    const TrialTolerances tol = trial_tolerances(*op, p, decls, in, ref);
    HostTensors out = allocate_host_results(decls);
    out[rmsnorm_rows::Y] = simulated_kernel(in, static_cast<float>(p.real("eps")), pattern, acc);
    const TrialJudgement j =
        judge_trial(decls, out, ref, [&](int i) { return tol.per_tensor.at(static_cast<std::size_t>(i)); }, false);
    const TensorErrors& y = j.tensors.at(0);
    v.passed = v.passed && j.passed;
    v.normwise = std::max(v.normwise, y.normwise);
    v.elementwise = std::max(v.elementwise, y.elementwise);
    v.normwise_bound = y.bound.normwise;
    v.elementwise_bound = y.bound.elementwise;
  }
  std::printf("  bf16 (%lld, %lld) %-9s %-10s %s accumulation: normwise %.3g (bound %.3g), elementwise %.3g (bound %.3g)\n",
              static_cast<long long>(kRows), static_cast<long long>(kCols), distribution_name(d).c_str(),
              pattern == Pattern::sequential ? "sequential" : "warp", dtype_name(acc.type).c_str(), v.normwise,
              v.normwise_bound, v.elementwise, v.elementwise_bound);
  return v;
}

class Bf16Accumulation : public testing::TestWithParam<Distribution> {};

TEST_P(Bf16Accumulation, FailsAtN8192WhileFp32AccumulationPasses) {
  for (Pattern pattern : {Pattern::sequential, Pattern::warp}) {
    SCOPED_TRACE(pattern == Pattern::sequential ? "sequential" : "warp");
    const Verdict fp32 = judge(GetParam(), pattern, {DType::f32});
    EXPECT_TRUE(fp32.passed) << "the control: fp32 accumulation, bf16 output";
    EXPECT_LT(fp32.normwise, 0.5 * fp32.normwise_bound);
    const Verdict bf16 = judge(GetParam(), pattern, {DType::bf16});
    EXPECT_FALSE(bf16.passed) << "a bf16 sum of squares passed the bf16 problem: normwise " << bf16.normwise;
    EXPECT_GT(bf16.normwise, 2 * bf16.normwise_bound) << "fails by a margin, not by noise";
  }
}

INSTANTIATE_TEST_SUITE_P(Inputs, Bf16Accumulation, testing::Values(Distribution::normal, Distribution::uniform01),
                         [](const testing::TestParamInfo<Distribution>& info) { return distribution_name(info.param); });

}  // namespace
}  // namespace nb
