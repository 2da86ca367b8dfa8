// Validation and timing must catch planted faults in real launches: each planted variant wraps
// the correct naive rmsnorm_rows kernel, and the unmodified kernel is the control that passes.
#include <benchmark/benchmark.h>
#include <gtest/gtest.h>

#include "gpu_harness.hpp"
#include "harness/report/case_metrics.hpp"
#include "harness/run/runner.hpp"
#include "planted_variants.hpp"

namespace nb::test {
namespace {

constexpr std::int64_t kRows = 64, kCols = 1000;

class PlantedValidationFault : public testing::TestWithParam<Fault> {};

// The planted variant fails every distribution in the way its fault shows, the control passes;
// `why_host` "" validates against the device reference, anything else against the host's.
void expect_rejected(Fault fault, const OpSpec& op, const Problem& problem, Variant& planted, Variant& correct,
                     const std::string& why_host) {
  SCOPED_TRACE(why_host.empty() ? "device reference" : "host reference");
  ValidationPlan plan;
  plan.distributions = {Distribution::uniform01, Distribution::normal};
  plan.why_host = why_host;
  const auto outcomes = validate_variants(op, problem, {&planted, &correct}, plan);

  EXPECT_EQ(outcomes[1].validation.disposition, Disposition::passed) << describe(outcomes[1]);
  const ValidationResult& v = outcomes[0].validation;
  ASSERT_EQ(outcomes[0].status, CaseStatus::ran) << describe(outcomes[0]);
  EXPECT_EQ(v.disposition, Disposition::incorrect);
  EXPECT_EQ(v.reference.computed_on, why_host.empty() ? "device" : "host");
  for (const auto& d : v.distributions) {
    EXPECT_FALSE(d.passed);
    EXPECT_FALSE(d.failure.empty());
    switch (fault) {
      case Fault::one_unwritten: EXPECT_EQ(d.unwritten, 1); break;
      case Fault::one_nan: EXPECT_GE(d.nonfinite_mismatch, 1); break;
      case Fault::writes_input: EXPECT_TRUE(d.input_modified); break;
      case Fault::zero_output: EXPECT_NEAR(d.normwise, 1.0, 1e-6); break;
      default: EXPECT_GT(d.normwise, 1e-2); break;
    }
  }
}

TEST_P(PlantedValidationFault, IsRejectedWhileTheControlPasses) {
  const OpSpec& op = registry().op("rmsnorm_rows");
  const Problem problem = op.make_problem({{"m", kRows}, {"n", kCols}});
  Variant* correct = op.find_variant("naive");
  ASSERT_NE(correct, nullptr);
  auto planted = make_planted_variant(GetParam(), op, *correct, kRows, kCols);
  expect_rejected(GetParam(), op, problem, *planted, *correct, "");
  expect_rejected(GetParam(), op, problem, *planted, *correct, "the host path, tested");
}

INSTANTIATE_TEST_SUITE_P(Faults, PlantedValidationFault,
                         testing::Values(Fault::zero_output, Fault::one_unwritten, Fault::one_nan, Fault::shifted,
                                         Fault::transposed, Fault::writes_input),
                         [](const testing::TestParamInfo<Fault>& info) { return fault_name(info.param); });

// Timing faults need a problem far larger than the L2 (512 MB moved) so that hidden work shows.
TEST(PlantedTimingFault, OtherStreamAndSkippedWorkAreFlaggedAndTheControlIsNot) {
  const OpSpec& op = registry().op("rmsnorm_rows");
  const std::int64_t rows = 16384, cols = 4096;
  const Problem problem = op.make_problem({{"m", rows}, {"n", cols}});
  Variant* correct = op.find_variant("naive");
  ASSERT_NE(correct, nullptr);
  auto other_stream = make_planted_variant(Fault::other_stream, op, *correct, rows, cols);
  auto skips_work = make_planted_variant(Fault::skips_work, op, *correct, rows, cols);

  int argc = 1;
  char name[] = "gpu_tests";
  char* argv[] = {name, nullptr};
  benchmark::Initialize(&argc, argv);
  RunOptions options;
  options.validation.trials = 1;
  options.validation.distributions = {Distribution::uniform01};
  options.samples.min_time_s = 0.05;
  options.progress = false;
  std::vector<RunCase> cases = {{&op, other_stream.get(), problem, {}},
                                {&op, skips_work.get(), problem, {}},
                                {&op, correct, problem, {}}};
  RunRecord record = run_cases(cases, options);
  const auto metrics = compute_metrics(record);

  ASSERT_TRUE(record.outcomes[0].timing.has_value());
  EXPECT_TRUE(metrics[0].has_flag(kFlagEscapesStream))
      << "event " << record.outcomes[0].timing->stats.median << " ms, wall "
      << record.outcomes[0].timing->wall_ms_per_launch << " ms";
  EXPECT_TRUE(metrics[1].has_flag(kFlagFasterThanLight)) << *metrics[1].gbps << " GB/s";
  EXPECT_EQ(record.outcomes[1].validation.disposition, Disposition::incorrect);
  EXPECT_FALSE(metrics[2].timing_untrusted()) << *metrics[2].gbps << " GB/s";
  EXPECT_EQ(record.outcomes[2].validation.disposition, Disposition::passed);
  EXPECT_EQ(run_exit_status(record, metrics), 1);
}

}  // namespace
}  // namespace nb::test
