#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "harness/timing/case_timer.hpp"
#include "harness/timing/statistics.hpp"

namespace nb {
namespace {

TEST(Statistics, MedianPercentilesAndSpreadOfKnownSamples) {
  // 1..10 in scrambled order: median 5.5, p10 1.9, p90 9.1 by linear interpolation.
  SampleStats s = summarize({7, 3, 10, 1, 5, 9, 2, 8, 4, 6});
  EXPECT_EQ(s.samples, 10);
  EXPECT_DOUBLE_EQ(s.median, 5.5);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 10);
  EXPECT_DOUBLE_EQ(s.mean, 5.5);
  EXPECT_NEAR(s.p10, 1.9, 1e-12);
  EXPECT_NEAR(s.p90, 9.1, 1e-12);
  EXPECT_NEAR(s.cv, 3.0276503540974917 / 5.5, 1e-12);  // sample standard deviation of 1..10
}

TEST(Statistics, OneSampleHasNoSpread) {
  SampleStats s = summarize({2.5});
  EXPECT_DOUBLE_EQ(s.median, 2.5);
  EXPECT_DOUBLE_EQ(s.p10, 2.5);
  EXPECT_DOUBLE_EQ(s.cv, 0);
}

TEST(Statistics, RejectsEmptyNegativeAndNonFiniteSamples) {
  EXPECT_THROW(summarize({}), std::invalid_argument);
  EXPECT_THROW(summarize({1.0, -1.0}), std::invalid_argument);
  EXPECT_THROW(summarize({1.0, std::nan("")}), std::invalid_argument);
}

TEST(SamplePlan, SampleCountFollowsTheLaunchTimeWithinBounds) {
  SamplePlan plan;  // 0.1 s of kernel time, 10..1000 samples, at most 1.5 s for a slow case
  EXPECT_EQ(plan.samples_for(5.0), 20);
  EXPECT_EQ(plan.samples_for(100.0), 10);   // 1 s: within the case budget
  EXPECT_EQ(plan.samples_for(0.001), 1000);
  EXPECT_EQ(plan.samples_for(0.0), 1000);
  EXPECT_EQ(plan.samples_for(200.0), 7);    // a 200 ms naive kernel: 1.5 s worth
  EXPECT_EQ(plan.samples_for(1500.0), 3);   // never fewer than 3
}

// A slow launch (a naive kernel) costs what the stopping rule asks and no more: its validation
// warmed it up, the samples stop at what fits in max_case_s (three at least), and the wall-clock
// bracket is one launch (repeated only when it looks like escaping work).
TEST(SamplePlan, ASlowLaunchStopsAsSoonAsTheRuleAllows) {
  SamplePlan plan;
  EXPECT_EQ(plan.samples_for(170.0), 8);    // a naive BatchNorm at 16x64x256x256: 1.4 s of samples
  EXPECT_EQ(plan.samples_for(501.0), 3);    // over max_case_s / 3: the median of three
  EXPECT_EQ(plan.samples_for(1100.0), 3);   // gemm_scale_bn 16384x4096x4096's naive launch
  EXPECT_EQ(plan.samples_for(31000.0), 3);
  EXPECT_EQ(plan.warm_ups_for(0.01), 3);
  EXPECT_EQ(plan.warm_ups_for(49.9), 3);
  EXPECT_EQ(plan.warm_ups_for(50.0), 1);  // the timed-output check snapshots what it wrote
  EXPECT_EQ(plan.warm_ups_for(1100.0), 1);
  EXPECT_EQ(plan.bracket_launches(0.001), 200);
  EXPECT_EQ(plan.bracket_launches(1.0), 20);
  EXPECT_EQ(plan.bracket_launches(25.0), 1);
  EXPECT_EQ(plan.bracket_launches(1100.0), 1);
  // In all, a 1.1 s launch is warmed once (the output check's snapshot), timed in 3 samples and
  // bracketed once: 5 launches, 5.5 s.
  EXPECT_EQ(plan.warm_ups_for(1100.0) + plan.samples_for(1100.0) + plan.bracket_launches(1100.0), 5);
}

}  // namespace
}  // namespace nb
