#include <gtest/gtest.h>

#include <cmath>

#include "harness/distribution.hpp"
#include "harness/errors.hpp"
#include "harness/narrow_float.hpp"

namespace nb {
namespace {

double mean_of(const std::vector<float>& v) {
  double s = 0;
  for (float x : v) s += x;
  return s / v.size();
}

double variance_of(const std::vector<float>& v) {
  const double mean = mean_of(v);
  double s = 0;
  for (float x : v) s += (x - mean) * (x - mean);
  return s / v.size();
}

// The values a device tensor of `storage` holds after the harness rounds the draw.
std::vector<float> drawn_and_stored(Distribution d, DType storage, std::size_t n = 1 << 18) {
  std::vector<float> v(n);
  draw(v, d, 9, 1, storage);
  round_to_storage(v, storage);
  return v;
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

// In fp16 (largest 65504, smallest normal 6.1e-5) `wide` spans 1e-4..1e4: every value stays finite,
// normal and within one rounding of what was drawn. In bf16 (fp32's exponent) it keeps 1e-20..1e20.
TEST(Distribution, WideStaysFiniteAndRepresentableInEachStorage) {
  for (DType t : {DType::f16, DType::bf16}) {
    std::vector<float> drawn(1 << 18);
    draw(drawn, Distribution::wide, 9, 1, t);
    const std::vector<float> stored = drawn_and_stored(Distribution::wide, t);
    float lo = INFINITY, hi = 0;
    for (std::size_t i = 0; i < stored.size(); ++i) {
      ASSERT_TRUE(std::isfinite(stored[i])) << dtype_name(t) << " " << drawn[i];
      ASSERT_NE(stored[i], 0.0f) << dtype_name(t) << " " << drawn[i];
      ASSERT_LE(std::fabs(stored[i] - drawn[i]), unit_roundoff(t) * std::fabs(drawn[i])) << dtype_name(t);
      lo = std::min(lo, std::fabs(stored[i]));
      hi = std::max(hi, std::fabs(stored[i]));
    }
    if (t == DType::f16) {
      EXPECT_GE(lo, 0x1p-14f) << "no fp16 subnormals";
      EXPECT_GT(hi, 9e3f);
      EXPECT_LT(hi, 1.0001e4f);
    } else {
      EXPECT_LT(lo, 1e-19f);
      EXPECT_GT(hi, 1e19f);
    }
  }
}

// `offset` must keep a spread the storage can see: 1e3 + 8 N(0,1) in bf16 (spacing 4 at 1e3),
// 1e3 + N(0,1) in fp16 (spacing 0.5). fp32's 1e4 + N(0,1) would round to one bf16 value (9984).
TEST(Distribution, OffsetSpreadSurvivesRoundingToStorage) {
  const std::vector<float> bf16 = drawn_and_stored(Distribution::offset, DType::bf16);
  EXPECT_NEAR(mean_of(bf16), 1e3, 0.1);
  EXPECT_NEAR(variance_of(bf16), 64.0 + 16.0 / 12, 2.0);  // the spread plus the rounding's own
  const std::vector<float> fp16 = drawn_and_stored(Distribution::offset, DType::f16);
  EXPECT_NEAR(mean_of(fp16), 1e3, 0.01);
  EXPECT_NEAR(variance_of(fp16), 1.0 + 0.25 / 12, 0.03);
  for (const auto* v : {&bf16, &fp16})
    for (float x : *v) ASSERT_TRUE(std::isfinite(x) && std::fabs(x - 1e3f) < 100.0f);

  std::vector<float> fp32_offset(1 << 16);
  draw(fp32_offset, Distribution::offset, 9, 1, DType::f32);
  round_to_storage(fp32_offset, DType::bf16);
  EXPECT_EQ(variance_of(fp32_offset), 0.0) << "why the narrow types draw their own offset";
}

// tiny_var is the same draw in every storage; in bf16 (spacing 2^-8 below 1, 2^-7 above) most of
// it rounds to exactly 1 (docs/tolerance.md says what that leaves).
TEST(Distribution, TinyVarMostlyRoundsToOneInBf16) {
  const std::vector<float> bf16 = drawn_and_stored(Distribution::tiny_var, DType::bf16);
  std::size_t ones = 0;
  for (float x : bf16) ones += x == 1.0f;
  const double share = static_cast<double>(ones) / bf16.size();
  EXPECT_GT(share, 0.95);
  EXPECT_LT(share, 0.99);
  EXPECT_GT(variance_of(bf16), 0.0);
  const std::vector<float> fp16 = drawn_and_stored(Distribution::tiny_var, DType::f16);
  EXPECT_NEAR(variance_of(fp16), 1e-6, 2e-7) << "fp16 (spacing 2^-11 below 1) keeps the spread";
}

TEST(Distribution, FormulasNameWhatEachStorageDraws) {
  EXPECT_EQ(distribution_formula(Distribution::offset), "1e4 + N(0,1)");
  EXPECT_EQ(distribution_formula(Distribution::offset, DType::bf16), "1e3 + 8 N(0,1)");
  EXPECT_EQ(distribution_formula(Distribution::offset, DType::f16), "1e3 + N(0,1)");
  EXPECT_EQ(distribution_formula(Distribution::wide, DType::f16), "+-10^U(-4,4)");
  EXPECT_EQ(distribution_formula(Distribution::wide, DType::bf16), "+-10^U(-20,20)");
  EXPECT_EQ(distribution_formula(Distribution::tiny_var, DType::bf16), "1 + 1e-3 N(0,1)");
}

TEST(Distribution, NamesRoundTripAndUnknownNamesAreUsageErrors) {
  for (Distribution d : all_distributions()) EXPECT_EQ(parse_distribution(distribution_name(d)), d);
  EXPECT_THROW(parse_distribution("gaussian"), UsageError);
}

}  // namespace
}  // namespace nb
