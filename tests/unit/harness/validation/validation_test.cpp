// The comparison must reject every planted fault the design names, and accept rounding noise.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "harness/distribution.hpp"
#include "harness/errors.hpp"
#include "harness/validation/compare.hpp"
#include "harness/validation/validation_plan.hpp"
#include "harness/validation/validation_result.hpp"

namespace nb {
namespace {

constexpr int kRows = 48, kCols = 80;

class PlantedFault : public testing::Test {
 protected:
  void SetUp() override {
    decls = {{"x", TensorRole::input, kRows * kCols}, {"y", TensorRole::output, kRows * kCols}};
    reference = allocate_references(decls);
    std::vector<float> values(kRows * kCols);
    draw(values, Distribution::normal, 42, 1);
    for (int i = 0; i < kRows * kCols; ++i) reference[1][i] = values[i];
    outputs.data.resize(2);
    outputs[1] = values;  // exact float copy of the reference: within tolerance
  }
  TrialJudgement judge(bool input_modified = false) {
    return judge_trial(decls, outputs, reference, default_tolerance(DType::f32), input_modified);
  }

  std::vector<TensorDecl> decls;
  ReferenceTensors reference;
  HostTensors outputs;
};

TEST_F(PlantedFault, CorrectOutputWithRoundingPasses) {
  for (auto& v : outputs[1]) v = std::nextafter(v, 1e30f);  // one ulp everywhere
  TrialJudgement j = judge();
  EXPECT_TRUE(j.passed) << j.failure;
  EXPECT_LT(j.tensors[0].normwise, 1e-6);
}

TEST_F(PlantedFault, AllZeroOutputFailsWithRelativeErrorOne) {
  std::fill(outputs[1].begin(), outputs[1].end(), 0.0f);
  TrialJudgement j = judge();
  EXPECT_FALSE(j.passed);
  EXPECT_NEAR(j.tensors[0].normwise, 1.0, 1e-12);
}

TEST_F(PlantedFault, OneUnwrittenElementIsCountedAndFails) {
  outputs[1][1234] = poison_value();
  TrialJudgement j = judge();
  EXPECT_FALSE(j.passed);
  EXPECT_EQ(j.tensors[0].unwritten, 1);
  EXPECT_EQ(j.tensors[0].first_unwritten, 1234);
  EXPECT_NE(j.failure.find("unwritten"), std::string::npos);
}

TEST_F(PlantedFault, OneNanFails) {
  outputs[1][77] = std::numeric_limits<float>::quiet_NaN();
  TrialJudgement j = judge();
  EXPECT_FALSE(j.passed);
  EXPECT_EQ(j.tensors[0].nonfinite_mismatch, 1);
}

TEST_F(PlantedFault, OneElementShiftFails) {
  std::vector<float> shifted(outputs[1].begin() + 1, outputs[1].end());
  shifted.push_back(outputs[1].front());
  outputs[1] = shifted;
  EXPECT_FALSE(judge().passed);
}

TEST_F(PlantedFault, TransposedOutputFails) {
  std::vector<float> t(outputs[1].size());
  for (int r = 0; r < kRows; ++r)
    for (int c = 0; c < kCols; ++c) t[c * kRows + r] = outputs[1][r * kCols + c];
  outputs[1] = t;
  EXPECT_FALSE(judge().passed);
}

TEST_F(PlantedFault, ModifiedInputFailsEvenWithCorrectOutput) {
  TrialJudgement j = judge(true);
  EXPECT_FALSE(j.passed);
  EXPECT_TRUE(j.input_modified);
}

// A single element off by 3e-4 of its value hides in the norm (3840 elements) but not elementwise.
TEST_F(PlantedFault, OneElementSlightlyOffFailsElementwiseOnly) {
  int at = 0;
  while (std::fabs(reference[1][at]) < 0.5 || std::fabs(reference[1][at]) > 1.5) ++at;
  outputs[1][at] = static_cast<float>(reference[1][at] * (1 + 3e-4));
  TrialJudgement j = judge();
  EXPECT_FALSE(j.passed);
  EXPECT_LT(j.tensors[0].normwise, default_tolerance(DType::f32).normwise);
  EXPECT_NE(j.failure.find("elementwise"), std::string::npos) << j.failure;
  EXPECT_EQ(j.tensors[0].worst_index, at);
}

// Placement counts, not kind: NaN may stand for an infinity, but a finite value may not, and an
// infinity must keep its sign.
TEST_F(PlantedFault, NonFinitePlacementMustMatchTheReference) {
  reference[1][9] = std::numeric_limits<double>::infinity();
  outputs[1][9] = std::numeric_limits<float>::infinity();
  EXPECT_TRUE(judge().passed);
  outputs[1][9] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(judge().passed);
  outputs[1][9] = -std::numeric_limits<float>::infinity();
  EXPECT_FALSE(judge().passed);
  outputs[1][9] = 1.0f;
  EXPECT_FALSE(judge().passed);
}

TEST(Compare, AllZeroReferenceWithZeroOutputIsExactNotNan) {
  std::vector<double> ref(10, 0.0);
  std::vector<float> out(10, 0.0f);
  TensorErrors e = compare_tensor("y", out, ref, default_tolerance(DType::f32));
  EXPECT_EQ(e.elementwise, 0.0);
  EXPECT_EQ(e.normwise, 0.0);
  out[3] = 1e-3f;
  e = compare_tensor("y", out, ref, default_tolerance(DType::f32));
  EXPECT_FALSE(tensor_failure(e, default_tolerance(DType::f32)).empty());
}

TEST(Tolerance, GrowsWithTheSquareRootOfLongReductionsOnly) {
  EXPECT_DOUBLE_EQ(reduction_growth(1), 1.0);
  EXPECT_DOUBLE_EQ(reduction_growth(64), 1.0);
  EXPECT_DOUBLE_EQ(reduction_growth(4096), 8.0);
  EXPECT_DOUBLE_EQ(default_tolerance(DType::f32).scaled(8.0).normwise, 8e-5);
}

// A device reference makes every distribution and three trials cheap at every size; a host one
// keeps uniform01 alone for large problems.
TEST(ValidationPlan, DeviceReferencesGetEveryDistributionHostOnesOnlySmallProblems) {
  ValidationOptions options;
  std::vector<TensorDecl> small = {{"x", TensorRole::input, 1000}};
  std::vector<TensorDecl> large = {{"x", TensorRole::input, options.full_validation_elements + 1}};
  std::vector<TensorDecl> huge = {{"x", TensorRole::input, options.huge_problem_elements + 1}};
  const std::string device = "", host = "--reference host";
  for (const auto* decls : {&small, &large, &huge}) {
    const ValidationPlan p = plan_validation(*decls, options, device);
    EXPECT_TRUE(p.device_reference);
    EXPECT_EQ(p.distributions.size(), all_distributions().size());
    EXPECT_EQ(p.trials, 3);
  }
  EXPECT_EQ(plan_validation(small, options, host).distributions.size(), all_distributions().size());
  const ValidationPlan on_host = plan_validation(large, options, host);
  EXPECT_FALSE(on_host.device_reference);
  EXPECT_EQ(on_host.why_host, host);
  EXPECT_EQ(on_host.distributions, std::vector<Distribution>{Distribution::uniform01});
  options.huge_problem_trials = 1;
  EXPECT_EQ(plan_validation(large, options, device).trials, 3);
  EXPECT_EQ(plan_validation(huge, options, device).trials, 1);
  ValidationPlan p = plan_validation(small, options, device);
  EXPECT_NE(p.seed(0, 1), p.seed(1, 1));
  EXPECT_NE(p.seed(0, 0), p.seed(0, 1));
}

// A variant whose launch in a distribution's first trial took more than tens of milliseconds (a
// naive kernel) gets that trial alone; the others every trial; every variant every distribution.
TEST(ValidationPlan, ASlowLaunchGetsOneTrialPerDistribution) {
  ValidationOptions options;
  const std::vector<TensorDecl> decls = {{"x", TensorRole::input, 1000}};
  const ValidationPlan plan = plan_validation(decls, options, "");
  EXPECT_EQ(plan.slow_launch_ms, 50);
  EXPECT_EQ(plan.trials_for(0.02), 3);
  EXPECT_EQ(plan.trials_for(50.0), 3) << "the bound itself is not slow";
  EXPECT_EQ(plan.trials_for(50.5), 1);
  EXPECT_EQ(plan.trials_for(1100.0), 1);  // gemm_scale_bn 16384x4096x4096's naive launch
  EXPECT_EQ(plan.trials_for(0.02, true), 1) << "one of normbench's own naive kernels, however fast";
  EXPECT_EQ(plan.trials_for(1100.0, true), 1);
  options.trials = 5;
  options.slow_launch_ms = 200;
  const ValidationPlan own = plan_validation(decls, options, "");
  EXPECT_EQ(own.trials_for(150.0), 5);
  EXPECT_EQ(own.trials_for(250.0), 1);
  options.trials = 1;
  EXPECT_EQ(plan_validation(decls, options, "").trials_for(1e6), 1) << "never more than --trials";
  options.slow_launch_ms = -1;
  EXPECT_THROW(plan_validation(decls, options, ""), UsageError);
}

TEST(ValidationResult, StressFailureCountsOnlyWhenClaimed) {
  ValidationResult r;
  DistributionVerdict ok, stress;
  stress.distribution = Distribution::offset;
  stress.stress_reason = "sum of squares cancels";
  stress.passed = false;
  stress.counts = false;
  r.distributions = {ok, stress};
  r.conclude();
  EXPECT_EQ(r.disposition, Disposition::passed);
  r.distributions[1].counts = true;
  r.conclude();
  EXPECT_EQ(r.disposition, Disposition::incorrect);
}

}  // namespace
}  // namespace nb
