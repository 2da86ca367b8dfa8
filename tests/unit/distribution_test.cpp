#include <gtest/gtest.h>

#include <cmath>

#include "harness/distribution.hpp"
#include "harness/errors.hpp"

namespace nb {
namespace {

double mean_of(const std::vector<float>& v) {
  double s = 0;
  for (float x : v) s += x;
  return s / v.size();
}

TEST(Distribution, DrawsAreReproducibleAndDependOnSeedAndSalt) {
  std::vector<float> a(100000), b(100000), c(100000), d(100000);
  draw(a, Distribution::normal, 1, 0);
  draw(b, Distribution::normal, 1, 0);
  draw(c, Distribution::normal, 2, 0);
  draw(d, Distribution::normal, 1, 1);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_NE(a, d);
}

TEST(Distribution, MomentsMatchTheirDefinitions) {
  std::vector<float> v(1 << 20);
  draw(v, Distribution::uniform01, 3, 0);
  EXPECT_NEAR(mean_of(v), 0.5, 0.005);
  for (float x : v) ASSERT_TRUE(x >= 0.0f && x < 1.0f);
  draw(v, Distribution::normal, 3, 0);
  EXPECT_NEAR(mean_of(v), 0.0, 0.01);
  draw(v, Distribution::offset, 3, 0);
  EXPECT_NEAR(mean_of(v), 1e4, 0.01);
  draw(v, Distribution::tiny_var, 3, 0);
  EXPECT_NEAR(mean_of(v), 1.0, 1e-4);
}

TEST(Distribution, WideSpansFortyDecadesWithinFp32) {
  std::vector<float> v(1 << 18);
  draw(v, Distribution::wide, 4, 0);
  float lo = 1e30f, hi = 0;
  for (float x : v) {
    ASSERT_TRUE(std::isfinite(x));
    lo = std::min(lo, std::fabs(x));
    hi = std::max(hi, std::fabs(x));
  }
  EXPECT_LT(lo, 1e-19f);
  EXPECT_GT(hi, 1e19f);
}

TEST(Distribution, SpecialPlantsNanAndBothInfinities) {
  std::vector<float> v(1 << 16);
  draw(v, Distribution::special, 5, 0);
  int nan = 0, pinf = 0, ninf = 0;
  for (float x : v) {
    nan += std::isnan(x);
    pinf += x == INFINITY;
    ninf += x == -INFINITY;
  }
  EXPECT_GE(nan, 1);
  EXPECT_GE(pinf, 1);
  EXPECT_GE(ninf, 1);
  EXPECT_LE(nan + pinf + ninf, special_count(v.size()));
}

TEST(Distribution, NamesRoundTripAndUnknownNamesAreUsageErrors) {
  for (Distribution d : all_distributions()) EXPECT_EQ(parse_distribution(distribution_name(d)), d);
  EXPECT_THROW(parse_distribution("gaussian"), UsageError);
}

}  // namespace
}  // namespace nb
