// The bf16 backward's bound (docs/tolerance.md, "The bf16 problems"; docs/notes/bf16-pipelines.md):
// autocast's backward (dg = dh * s rounded to bf16 before db, dx and dW use it, fp32 sums, dx, dW
// and db stored in bf16) passes every quick bf16 problem on every distribution it counts; the same
// computation with its GEMMs summed in bf16 (a kernel below the problem's contract) fails dx and dW
// where they reduce over 1024 terms or more. Emulated on the CPU (gemm_bwd_fp32.hpp), judged with
// the op's real tolerances against its float64 reference.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "gemm_bwd_fp32.hpp"
#include "harness/narrow_float.hpp"

namespace nb::test {
namespace {

using namespace gemm_scale_bn_bwd;

// autocast's backward, the outputs as the device stores them (rounded to each tensor's storage),
// with one planted fault if asked.
HostTensors autocast_backward(const ReferenceTrial& t, bool bf16_gemm_sums,
                              BackwardFault fault = BackwardFault::none) {
  HostTensors out = fp32_backward(t, fault, BackwardArithmetic{to_bf16, true, bf16_gemm_sums});
  for (int i : kOutputs) round_to_storage(out[i], t.decls[std::size_t(i)].dtype);
  return out;
}

TEST(Bf16BackwardTolerance, TheLinearGradientsAreStoredInBf16) {
  const auto op = backward_op();
  const Problem p = op->make_problem({{"m", 8}, {"n", 4}, {"k", 2}}, DType::bf16);
  const std::vector<TensorDecl> decls = op->tensors(p);
  for (int i : {kX, kWeight, kG, kDx, kDweight, kDbias}) EXPECT_EQ(decls[std::size_t(i)].dtype, DType::bf16);
  for (int i : {kScale, kGamma, kSaveMean, kSaveInvstd, kDy, kDscale, kDgamma, kDbeta})
    EXPECT_EQ(decls[std::size_t(i)].dtype, DType::f32);
}

// The saved h of a bf16 problem is autocast's: bf16 values, and the saved statistics are those of
// that rounded h times s (what a bf16 forward would have saved), not of an fp32 h.
TEST(Bf16BackwardTolerance, TheSavedHIsBf16AndTheStatisticsAreItsOwn) {
  const auto op = backward_op();
  const Problem p = op->make_problem({{"m", 37}, {"n", 11}, {"k", 19}}, DType::bf16);
  const ReferenceTrial t = reference_trial(*op, p, Distribution::normal, 4);
  for (float g : t.in[kG]) EXPECT_EQ(round_to_storage(g, DType::bf16), g);
  // Statistics of the fp32 h (then h rounded) would miss these by about u_bf16 of the spread.
  expect_statistics_of_saved_g(t, 37, 11);
}

TEST(Bf16BackwardTolerance, AutocastPassesEveryQuickBf16Problem) {
  const auto op = backward_op();
  int problems = 0;
  for (const Problem& p : op->problems_in("quick")) {
    if (p.dtype != DType::bf16) continue;
    ++problems;
    for (Distribution d : validated_distributions(*op, p))
      for (std::uint64_t seed : {1, 2, 1000}) {
        SCOPED_TRACE(p.id() + " " + distribution_name(d) + " seed " + std::to_string(seed));
        const ReferenceTrial t = reference_trial(*op, p, d, seed);
        EXPECT_LT(worst_ratio(bound_ratios(*op, t, autocast_backward(t, false))), 0.6);
      }
  }
  EXPECT_EQ(problems, 4);
}

// dx = dg W reduces over N, dW = dg^T x over M: each fails where its reduction is long.
TEST(Bf16BackwardTolerance, GemmsSummedInBf16FailWhereTheyReduceLong) {
  const auto op = backward_op();
  for (const Params& params : {Params{{"m", 1024}, {"n", 1024}, {"k", 64}}, Params{{"m", 256}, {"n", 8192}, {"k", 32}}}) {
    const Problem p = op->make_problem(params, DType::bf16);
    for (Distribution d : {Distribution::uniform01, Distribution::normal})
      for (std::uint64_t seed : {1, 2}) {
        SCOPED_TRACE(p.id() + " " + distribution_name(d) + " seed " + std::to_string(seed));
        const ReferenceTrial t = reference_trial(*op, p, d, seed);
        EXPECT_LT(worst_ratio(bound_ratios(*op, t, autocast_backward(t, false))), 0.6);
        const std::vector<double> sums = bound_ratios(*op, t, autocast_backward(t, true));
        EXPECT_GT(sums[kDx], 2.0);
        if (p.dim("m") >= 1024) EXPECT_GT(sums[kDweight], 2.0);
      }
  }
}

// The planted faults of the fp32 tests (gemm_bwd_fp32.hpp) in autocast's arithmetic: the bf16
// bounds, wider on dx, dW and db, must still reject each wherever it rejects them in fp32
// (fault_can_show: all but special, and on tiny_var the unbiased variance at M = 2 alone and
// never a transposed dW; offset is a stress distribution of the bf16 backward).
TEST(Bf16BackwardTolerance, PlantedFaultsFail) {
  expect_planted_faults_fail(*backward_op(), DType::bf16, [](const ReferenceTrial& t, BackwardFault f) {
    return autocast_backward(t, false, f);
  });
}

// The ratios behind docs/tolerance.md: --gtest_also_run_disabled_tests prints them.
TEST(Bf16BackwardTolerance, DISABLED_PrintRatios) {
  const auto op = backward_op();
  std::vector<Problem> problems;
  for (const Problem& p : op->problems_in("quick"))
    if (p.dtype == DType::bf16) problems.push_back(p);
  problems.push_back(op->make_problem({{"m", 1024}, {"n", 1024}, {"k", 64}}, DType::bf16));
  for (const Problem& p : problems)
    for (Distribution d : all_distributions()) {
      const ReferenceTrial t = reference_trial(*op, p, d, 1);
      for (bool sums : {false, true}) {
        std::printf("%-40s %-10s %-9s", p.id().c_str(), distribution_name(d).c_str(), sums ? "bf16 sums" : "autocast");
        for (int i : kOutputs)
          std::printf(" %s %.3g", t.decls[std::size_t(i)].name.c_str(), bound_ratios(*op, t, autocast_backward(t, sums))[std::size_t(i)]);
        std::printf("\n");
      }
    }
}

}  // namespace
}  // namespace nb::test
