// GroupNorm: the float64 reference against plain long double loops, the spec's checks, and the
// verdicts the stress design promises (sum/sum-of-squares fails offset, two-pass passes).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "reference_trial.hpp"
#include "baselines/cpu/groupnorm_reference.hpp"
#include "harness/errors.hpp"
#include "harness/validation/compare.hpp"
#include "kernels/groupnorm/spec.hpp"
#include "kernels/ops.hpp"

namespace nb {
namespace {

struct Case {
  std::int64_t n, c, h, w, g;
};

using Trial = test::ReferenceTrial;

Trial make_trial(const OpSpec& op, const Case& k, Distribution d, std::uint64_t seed) {
  return test::reference_trial(op,
                               op.make_problem({{"n", double(k.n)}, {"c", double(k.c)}, {"h", double(k.h)},
                                                {"w", double(k.w)}, {"g", double(k.g)}}),
                               d, seed);
}

// y by the textbook formula in long double, one group at a time.
std::vector<long double> long_double_groupnorm(const Case& k, const HostTensors& in, double eps) {
  const std::int64_t hw = k.h * k.w, cpg = k.c / k.g, count = cpg * hw;
  std::vector<long double> y(in[0].size());
  for (std::int64_t grp = 0; grp < k.n * k.g; ++grp) {
    long double sum = 0, dev2 = 0;
    for (std::int64_t i = 0; i < count; ++i) sum += in[0][grp * count + i];
    const long double mean = sum / count;
    for (std::int64_t i = 0; i < count; ++i) dev2 += (in[0][grp * count + i] - mean) * (in[0][grp * count + i] - mean);
    const long double invstd = 1.0L / std::sqrt(dev2 / count + eps);
    for (std::int64_t i = 0; i < count; ++i) {
      const std::int64_t c = grp % k.g * cpg + i / hw;
      y[grp * count + i] = (in[0][grp * count + i] - mean) * invstd * in[1][c] + in[2][c];
    }
  }
  return y;
}

// A fp32 kernel stand-in: statistics from float sum and sum of squares, as the smem/warp variants.
HostTensors fp32_sum_squares(const Case& k, const Trial& t) {
  const std::int64_t hw = k.h * k.w, cpg = k.c / k.g, count = cpg * hw;
  HostTensors out;
  out.data.resize(t.decls.size());
  out[groupnorm::kY].resize(t.in[0].size());
  for (std::int64_t grp = 0; grp < k.n * k.g; ++grp) {
    float sum = 0, sq = 0;
    for (std::int64_t i = 0; i < count; ++i) sum += t.in[0][grp * count + i], sq += t.in[0][grp * count + i] * t.in[0][grp * count + i];
    const float mean = sum / count, var = std::max(0.0f, sq / count - mean * mean), invstd = 1.0f / std::sqrt(var + 1e-5f);
    for (std::int64_t i = 0; i < count; ++i) {
      const std::int64_t c = grp % k.g * cpg + i / hw;
      out[groupnorm::kY][grp * count + i] = (t.in[0][grp * count + i] - mean) * invstd * t.in[1][c] + t.in[2][c];
    }
  }
  return out;
}

class GroupNormReference : public testing::Test {
 protected:
  std::unique_ptr<OpSpec> op = make_groupnorm_op();
};

TEST_F(GroupNormReference, MatchesLongDoubleLoopsOnOddShapes) {
  for (const Case& k : {Case{2, 6, 5, 7, 6}, Case{3, 4, 3, 3, 1}, Case{5, 12, 1, 1, 3}, Case{3, 10, 17, 13, 5}}) {
    for (Distribution d : {Distribution::normal, Distribution::offset, Distribution::uniform01}) {
      const Trial t = make_trial(*op, k, d, 7);
      const std::vector<long double> expect = long_double_groupnorm(k, t.in, 1e-5);
      for (std::size_t i = 0; i < expect.size(); ++i)
        ASSERT_NEAR(t.ref[groupnorm::kY][i], double(expect[i]), 1e-9 * (1 + std::fabs(double(expect[i]))))
            << "c=" << k.c << " g=" << k.g << " i=" << i;
    }
  }
}

TEST_F(GroupNormReference, NonFiniteStaysInItsGroup) {
  const Case k{2, 6, 4, 5, 3};
  Trial t = make_trial(*op, k, Distribution::normal, 3);
  t.in[0][1 * 40 + 7] = std::numeric_limits<float>::quiet_NaN();  // group 1
  t.in[0][4 * 40 + 3] = std::numeric_limits<float>::infinity();   // group 4
  op->reference(t.p, t.in, t.ref);
  for (std::int64_t i = 0; i < 6 * 40; ++i) {
    const bool poisoned_group = i / 40 == 1 || i / 40 == 4;
    EXPECT_EQ(std::isnan(t.ref[groupnorm::kY][i]), poisoned_group) << i;
  }
}

TEST_F(GroupNormReference, ChannelsNotDivisibleByGroupsIsAUsageError) {
  try {
    op->make_problem({{"n", 2}, {"c", 10}, {"g", 3}});
    FAIL() << "c % g != 0 accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("not divisible"), std::string::npos) << e.what();
  }
}

// (c/g)*h*w of c, h, w up to 1e9 is beyond 64 bits: the check must not wrap (to a negative size
// that passed) and let a group of 1e27 elements through.
TEST_F(GroupNormReference, AGroupBeyondSixtyFourBitsIsRefused) {
  try {
    op->make_problem({{"n", 1}, {"c", 1e9}, {"h", 1e9}, {"w", 1e9}, {"g", 1}});
    FAIL() << "a group of 1e27 elements accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("2^31"), std::string::npos) << e.what();
  }
}

TEST_F(GroupNormReference, ProblemIdsRoundTrip) {
  for (const Problem& p : op->problems_in("")) {
    const Problem back = op->parse_problem_id(p.id());
    EXPECT_EQ(back.id(), p.id());
    EXPECT_EQ(back.params.values(), p.params.values());
  }
  EXPECT_EQ(op->problems_in("kb").size(), 3u);
  EXPECT_EQ(op->make_problem({{"n", 16}, {"c", 64}, {"h", 256}, {"w", 256}, {"g", 8}}).id(),
            "groupnorm/n16_c64_h256_w256_g8/fp32");
}

TEST_F(GroupNormReference, ConditionSeesTheOffset) {
  const Case k{2, 8, 9, 11, 4};
  const Trial offset = make_trial(*op, k, Distribution::offset, 1), uniform = make_trial(*op, k, Distribution::uniform01, 1);
  EXPECT_GT(op->condition(offset.p, offset.in), 5e3);
  EXPECT_LT(op->condition(uniform.p, uniform.in), 3.0);
}

// The stress design: fp32 sum / sum-of-squares passes normal data but fails offset even with the
// tolerance scaled by the condition; an all-zero output fails.
TEST_F(GroupNormReference, PlantedFaultsAndStressVerdicts) {
  const Case k{2, 8, 33, 31, 4};
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    const Trial normal = make_trial(*op, k, Distribution::normal, seed);
    const TrialJudgement ok = judge_trial(normal.decls, fp32_sum_squares(k, normal), normal.ref,
                                          op->tolerance(normal.p).scaled(op->condition(normal.p, normal.in)), false);
    EXPECT_TRUE(ok.passed) << ok.failure;

    const Trial offset = make_trial(*op, k, Distribution::offset, seed);
    const TrialJudgement bad = judge_trial(offset.decls, fp32_sum_squares(k, offset), offset.ref,
                                           op->tolerance(offset.p).scaled(op->condition(offset.p, offset.in)), false);
    EXPECT_FALSE(bad.passed) << "sum/sum-of-squares passed offset";

    HostTensors zeros;
    zeros.data.resize(normal.decls.size());
    zeros[groupnorm::kY].assign(normal.in[0].size(), 0.0f);
    EXPECT_FALSE(judge_trial(normal.decls, zeros, normal.ref, op->tolerance(normal.p), false).passed);
  }
}

}  // namespace
}  // namespace nb
