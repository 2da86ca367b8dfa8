// Every variant of every op on every problem of the quick suite and every distribution: a
// counted distribution must pass; a stress distribution may miss its numeric bound only where the
// variant does not claim it (the case stays passed, marked fragile), never a hard check (NaN/Inf
// placement, unwritten elements, inputs); a variant that cannot run a problem must say why. A
// library baseline is held to the same bar except for the placement of NaN/Inf on `special` and
// on `wide` (cuDNN's BatchNorm running variance overflows to Inf there), which is the library's
// behaviour, not ours to fix: the report shows it as incorrect, and the test prints it.
// MisalignedQuickSuite holds every variant to the same bar with each tensor one element past a
// 256-byte boundary (TensorPlacement::misaligned), on one trial of `normal`: a 16-byte vector path
// (packs, cp.async, TMA) must notice and fall back, or the variant declines with a reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include "gpu_harness.hpp"
#include "harness/report/case_metrics.hpp"
#include "quick_problems.hpp"

namespace nb::test {
namespace {

// Each variant either ran and passed (a library baseline may misplace NaN/Inf on `special` and
// `wide` only), or skipped the problem with a reason; at least one ran.
void expect_passed_or_declined(const Problem& problem, const std::vector<Variant*>& variants,
                               const ValidationPlan& plan, const std::vector<CaseOutcome>& outcomes) {
  const auto ran = std::count_if(outcomes.begin(), outcomes.end(),
                                 [](const CaseOutcome& o) { return o.status == CaseStatus::ran; });
  EXPECT_GE(ran, 1) << problem.id() << ": every variant skipped it, so nothing was verified";
  for (std::size_t k = 0; k < variants.size(); ++k) {
    SCOPED_TRACE(problem.id() + " / " + variants[k]->name());
    const CaseOutcome& o = outcomes[k];
    if (o.status == CaseStatus::skipped) {
      EXPECT_FALSE(o.reason.empty()) << "a skipped variant must say why";
      continue;
    }
    ASSERT_EQ(o.status, CaseStatus::ran) << describe(o);
    if (variants[k]->is_library_baseline() && o.validation.disposition == Disposition::incorrect) {
      // The rule the run's exit status applies (harness/report/case_metrics.hpp).
      EXPECT_TRUE(library_misplaces_nonfinite_only(*variants[k], o))
          << "only NaN/Inf placement on special or wide may differ: " << describe(o);
      for (const auto& d : o.validation.distributions) {
        if (d.passed || (!d.counts && !d.hard_failed)) continue;
        std::printf("library baseline %s on %s: NaN/Inf placement differs from the reference on %s\n",
                    variants[k]->name().c_str(), problem.id().c_str(), distribution_name(d.distribution).c_str());
      }
    } else {
      EXPECT_EQ(o.validation.disposition, Disposition::passed) << describe(o);
    }
    for (const auto& d : o.validation.distributions) {
      // The plan's trials, or one for a launch over ValidationPlan::slow_launch_ms (said, to be seen).
      const auto trials = static_cast<std::size_t>(plan.trials);
      EXPECT_TRUE(d.seeds.size() == trials || d.seeds.size() == 1u) << d.seeds.size() << " trials";
      if (d.seeds.size() == 1u && trials > 1u)
        std::printf("%s on %s: a slow launch (%.1f ms last), one trial of %s\n", variants[k]->name().c_str(),
                    problem.id().c_str(), o.validation.launch_ms_estimate, distribution_name(d.distribution).c_str());
      EXPECT_EQ(d.unwritten, 0) << distribution_name(d.distribution);
      EXPECT_FALSE(d.input_modified) << distribution_name(d.distribution);
    }
  }
}

std::vector<Variant*> every_variant(const OpSpec& op) {
  std::vector<Variant*> variants;
  for (const auto& v : op.variants()) variants.push_back(v.get());
  return variants;
}

class QuickSuite : public testing::TestWithParam<OpProblem> {};

TEST_P(QuickSuite, EveryVariantPassesEveryCountedDistribution) {
  const auto& [op, problem] = GetParam();
  const std::vector<Variant*> variants = every_variant(*op);
  const ValidationPlan plan = every_distribution();
  expect_passed_or_declined(problem, variants, plan, validate_variants(*op, problem, variants, plan));
}

class MisalignedQuickSuite : public testing::TestWithParam<OpProblem> {};

TEST_P(MisalignedQuickSuite, EveryVariantPassesOrDeclinesOnMisalignedTensors) {
  const auto& [op, problem] = GetParam();
  const std::vector<Variant*> variants = every_variant(*op);
  ValidationPlan plan;
  plan.distributions = {Distribution::normal};
  plan.trials = 1;
  const std::vector<CaseOutcome> outcomes =
      validate_variants(*op, problem, variants, plan, nullptr, TensorPlacement::misaligned);
  expect_passed_or_declined(problem, variants, plan, outcomes);
  for (std::size_t k = 0; k < variants.size(); ++k)  // which ran and which declined, to be seen (ctest -V)
    std::printf("misaligned %s / %s: %s\n", problem.id().c_str(), variants[k]->name().c_str(),
                outcomes[k].status == CaseStatus::ran ? "ran" : ("declined: " + outcomes[k].reason).c_str());
}

INSTANTIATE_TEST_SUITE_P(AllOps, QuickSuite, testing::ValuesIn(quick_problems(registry())), problem_test_name);
INSTANTIATE_TEST_SUITE_P(AllOps, MisalignedQuickSuite, testing::ValuesIn(quick_problems(registry())),
                         problem_test_name);

}  // namespace
}  // namespace nb::test
