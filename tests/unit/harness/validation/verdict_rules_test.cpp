// The verdict rules (docs/validation.md, docs/tolerance.md): a stress distribution relaxes only the
// numeric bound; a bound beyond the discrimination ceiling is inconclusive, and a case with nothing
// but inconclusive checks is not passed; a missed bound on an unclaimed stress distribution marks
// the case fragile (--strict fails it); a passing case whose timing is untrusted is flagged.
#include <gtest/gtest.h>

#include <limits>

#include "harness/errors.hpp"
#include "harness/report/case_metrics.hpp"
#include "harness/validation/compare.hpp"
#include "harness/validation/validation_result.hpp"

namespace nb {
namespace {

constexpr int kElements = 64;

// One output tensor, its float64 reference and an exact copy of it as the output.
struct OneOutput {
  std::vector<TensorDecl> decls{{"x", TensorRole::input, kElements}, {"y", TensorRole::output, kElements}};
  ReferenceTensors reference = allocate_references(decls);
  HostTensors outputs;
  OneOutput() {
    outputs.data.resize(2);
    for (int i = 0; i < kElements; ++i) {
      reference[1][i] = 1.0 + 0.01 * i;
      outputs[1].push_back(static_cast<float>(reference[1][i]));
    }
  }
  TrialJudgement judge(const Tolerance& tol = default_tolerance(DType::f32)) {
    return judge_trial(decls, outputs, reference, tol, false);
  }
};

// A verdict of one trial of `distribution` for a variant that does (counts) or does not claim it.
DistributionVerdict verdict_of(const TrialJudgement& j, Distribution distribution, bool counts) {
  DistributionVerdict d;
  d.distribution = distribution;
  d.counts = counts;
  if (!counts) d.stress_reason = "a stress distribution";
  d.add_trial(7, j);
  return d;
}

ValidationResult concluded(std::vector<DistributionVerdict> distributions, bool strict = false) {
  ValidationResult r;
  r.distributions = std::move(distributions);
  r.conclude(strict);
  return r;
}

TEST(VerdictRules, HardFailuresCountOnAStressDistributionTheVariantDoesNotClaim) {
  OneOutput ok;
  for (const auto& plant : {poison_value(), std::numeric_limits<float>::quiet_NaN(),
                            std::numeric_limits<float>::infinity()}) {
    OneOutput bad;
    bad.outputs[1][5] = plant;
    const TrialJudgement j = bad.judge();
    EXPECT_TRUE(j.hard_failure);
    const ValidationResult r = concluded({verdict_of(ok.judge(), Distribution::uniform01, true),
                                          verdict_of(j, Distribution::wide, false)});
    EXPECT_EQ(r.disposition, Disposition::incorrect) << "plant " << plant;
    EXPECT_TRUE(r.fragile().empty());  // a hard failure is not fragility
  }
  // A changed input likewise.
  const TrialJudgement modified = judge_trial(ok.decls, ok.outputs, ok.reference, default_tolerance(DType::f32), true);
  EXPECT_TRUE(modified.hard_failure);
  EXPECT_EQ(concluded({verdict_of(ok.judge(), Distribution::uniform01, true),
                       verdict_of(modified, Distribution::offset, false)}).disposition,
            Disposition::incorrect);
}

TEST(VerdictRules, ANumericMissOnAnUnclaimedStressDistributionIsFragileAndStrictFailsIt) {
  OneOutput ok, off;
  for (auto& v : off.outputs[1]) v *= 1.5f;  // 50% off everywhere
  const TrialJudgement missed = off.judge();
  EXPECT_FALSE(missed.hard_failure);
  EXPECT_TRUE(missed.numeric_failure);
  const std::vector<DistributionVerdict> verdicts{verdict_of(ok.judge(), Distribution::uniform01, true),
                                                  verdict_of(missed, Distribution::wide, false)};
  const ValidationResult r = concluded(verdicts);
  EXPECT_EQ(r.disposition, Disposition::passed);
  ASSERT_EQ(r.fragile().size(), 1u);
  EXPECT_EQ(r.fragile()[0].distribution, Distribution::wide);
  EXPECT_EQ(r.fragile()[0].tensor, "y");
  EXPECT_NEAR(r.fragile()[0].share_of_bound, 0.5 / 1e-5, 1.0);  // the normwise error 0.5 over 1e-5
  EXPECT_EQ(concluded(verdicts, true).disposition, Disposition::incorrect);
  // Claimed, the same miss fails.
  EXPECT_EQ(concluded({verdicts[0], verdict_of(missed, Distribution::wide, true)}).disposition, Disposition::incorrect);
}

TEST(VerdictRules, ABoundBeyondTheCeilingIsInconclusiveAndNeverAPass) {
  EXPECT_DOUBLE_EQ(discrimination_ceiling(DType::f32, DType::f32), 1e-2);
  EXPECT_DOUBLE_EQ(discrimination_ceiling(DType::tf32, DType::f32), 2.5e-2);
  EXPECT_DOUBLE_EQ(discrimination_ceiling(DType::f16, DType::f16), 1e-2);
  EXPECT_NEAR(discrimination_ceiling(DType::bf16, DType::bf16), 4 * 1.25 * 0x1.0p-8, 1e-12);
  // A condition widens the bound, never the ceiling.
  EXPECT_DOUBLE_EQ(default_tolerance(DType::f32).scaled(1e4).ceiling, 1e-2);
  EXPECT_FALSE(default_tolerance(DType::f32).scaled(1e4).discriminates());
  EXPECT_TRUE(default_tolerance(DType::f32).scaled(1e2).discriminates());
  OneOutput loose;
  for (auto& v : loose.outputs[1]) v *= 1.3f;  // 30% off, inside a bound of 0.51
  const Tolerance wide_bound{0.51, 5.0, 0.5, 0, 2.5e-2};
  const TrialJudgement j = loose.judge(wide_bound);
  EXPECT_TRUE(j.passed);
  ASSERT_EQ(j.tensors.size(), 1u);
  EXPECT_TRUE(j.tensors[0].inconclusive);
  const ValidationResult r = concluded({verdict_of(j, Distribution::uniform01, true)});
  EXPECT_EQ(r.disposition, Disposition::inconclusive);
  EXPECT_EQ(r.inconclusive_checks(), std::vector<std::string>{"uniform01: y"});
  // One discriminating check elsewhere makes it a pass; the loose one stays listed.
  OneOutput ok;
  const ValidationResult mixed = concluded({verdict_of(j, Distribution::uniform01, true),
                                            verdict_of(ok.judge(), Distribution::normal, true)});
  EXPECT_EQ(mixed.disposition, Disposition::passed);
  EXPECT_EQ(mixed.inconclusive_checks().size(), 1u);
  // An error beyond even the loose bound still fails.
  for (auto& v : loose.outputs[1]) v *= 2.0f;
  EXPECT_EQ(concluded({verdict_of(loose.judge(wide_bound), Distribution::uniform01, true)}).disposition,
            Disposition::incorrect);
}

// A float64 reference beyond the storage's range is an infinity once stored (BatchNorm's running
// variance of `wide` data): that infinity, or a NaN for it, is in place; the other sign is not.
TEST(VerdictRules, AnInfinityWhereTheReferenceOverflowsTheStorageIsInPlace) {
  OneOutput o;
  o.reference[1][3] = 1e40;
  o.outputs[1][3] = std::numeric_limits<float>::infinity();
  EXPECT_TRUE(o.judge().passed) << o.judge().failure;
  o.outputs[1][3] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(o.judge().passed);
  o.outputs[1][3] = -std::numeric_limits<float>::infinity();
  EXPECT_TRUE(o.judge().hard_failure);
  o.reference[1][3] = 1e30;  // within fp32's range: an infinity is out of place
  o.outputs[1][3] = std::numeric_limits<float>::infinity();
  EXPECT_TRUE(o.judge().hard_failure);
  // fp16's range ends at 65504.
  std::vector<double> ref{1.0, 70000.0};
  std::vector<float> out{1.0f, std::numeric_limits<float>::infinity()};
  EXPECT_EQ(compare_tensor("y", out, ref, default_tolerance(DType::f16), -1, DType::f16).nonfinite_mismatch, 0);
  EXPECT_EQ(compare_tensor("y", out, ref, default_tolerance(DType::f32), -1, DType::f32).nonfinite_mismatch, 1);
}

TEST(VerdictRules, APassingCaseWithAnUntrustedTimingIsFlagged) {
  CaseOutcome o;
  o.validation.disposition = Disposition::passed;
  CaseMetrics m;
  EXPECT_EQ(reported_disposition(o, m), Disposition::passed);
  m.flags = {kFlagFitsInL2, kFlagThrottled};
  EXPECT_EQ(reported_disposition(o, m), Disposition::passed);
  for (const char* flag : {kFlagFasterThanLight, kFlagEscapesStream, kFlagAllocatesInLaunch, "timed_output_mismatch"}) {
    m.flags = {kFlagFitsInL2, flag};
    EXPECT_EQ(reported_disposition(o, m), Disposition::flagged) << flag;
  }
  o.validation.disposition = Disposition::incorrect;
  EXPECT_EQ(reported_disposition(o, m), Disposition::incorrect);
  o.skip("unsupported");
  EXPECT_EQ(reported_disposition(o, m), Disposition::not_verified);
}

TEST(VerdictRules, DispositionNamesRoundTrip) {
  for (Disposition d : {Disposition::passed, Disposition::incorrect, Disposition::inconclusive, Disposition::flagged,
                        Disposition::not_verified})
    EXPECT_EQ(parse_disposition(disposition_name(d)), d);
  EXPECT_THROW(parse_disposition("fine"), UsageError);
}

}  // namespace
}  // namespace nb
