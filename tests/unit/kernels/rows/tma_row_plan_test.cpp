// The TMA-fed rows' plan (kernels/rows/tma_rows/plan.hpp): every row of 16-byte packs up to 16
// parts of 512 consumers of four packs gets a cluster whose parts cover it with no consumer warp
// idle and stages within an SM's shared memory; others get a reason; every band has rows.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "kernels/rows/tma_rows/plan.hpp"

namespace nb::rows::tma {
namespace {

void expect_valid(const Plan& plan, std::int64_t n, int element_bytes) {
  SCOPED_TRACE("n = " + std::to_string(n) + ", " + std::to_string(element_bytes) + "-byte elements");
  ASSERT_TRUE(plan.unsupported.empty()) << plan.unsupported;
  EXPECT_EQ(plan.vec * element_bytes, 16);
  EXPECT_EQ(plan.packs * plan.vec, n);
  EXPECT_GE(plan.parts, 1);
  EXPECT_LE(plan.parts, kMaxParts);
  EXPECT_EQ(plan.parts & (plan.parts - 1), 0) << "a power of two";
  EXPECT_GE(plan.packs_per_part * plan.parts, plan.packs) << "the parts cover the row";
  EXPECT_LT(plan.packs_per_part * (plan.parts - 1), plan.packs) << "the last part holds packs";
  EXPECT_EQ(plan.consumers % 32, 0);
  EXPECT_LE(plan.consumers, kMaxConsumers);
  EXPECT_GE(std::int64_t(plan.consumers) * kPacksPerThread, plan.packs_per_part);
  EXPECT_LT(std::int64_t(plan.consumers - 32) * kPacksPerThread, plan.packs_per_part) << "no consumer warp idle";
  if (plan.parts > 1) EXPECT_GE(plan.consumers, plan.parts) << "a consumer thread a rank pushes the exchange";
  EXPECT_EQ(plan.threads(), plan.consumers + 32);
  EXPECT_EQ(plan.shared_bytes, std::size_t(kStages) * std::size_t(plan.packs_per_part) * 16);
  EXPECT_LE(plan.shared_bytes, 227u * 1024) << "within an SM's shared memory";
}

TEST(TmaRowPlan, EveryPackedLengthIsCovered) {
  for (int element_bytes : {4, 2}) {
    const int vec = 16 / element_bytes;
    const std::int64_t longest = std::int64_t(kMaxParts) * kMaxConsumers * kPacksPerThread * vec;
    for (std::int64_t n = vec; n <= longest; n += vec * (n < 20000 ? 1 : 29))
      expect_valid(plan_tma_rows(n, element_bytes), n, element_bytes);
    expect_valid(plan_tma_rows(longest, element_bytes), longest, element_bytes);
  }
}

TEST(TmaRowPlan, KnownShapes) {
  const Plan bf16_32768 = plan_tma_rows(32768, 2);  // two parts of 512 consumers, 32 KB stages
  EXPECT_EQ(bf16_32768.parts, 2);
  EXPECT_EQ(bf16_32768.consumers, kMaxConsumers);
  EXPECT_EQ(bf16_32768.shared_bytes, 96u * 1024);
  EXPECT_EQ(plan_tma_rows(262144, 2).parts, kMaxParts);
  EXPECT_EQ(plan_tma_rows(16384, 2).parts, 1);
  const Plan bf16_1024 = plan_tma_rows(1024, 2);  // one consumer warp of 32 elements a thread
  EXPECT_EQ(bf16_1024.parts, 1);
  EXPECT_EQ(bf16_1024.consumers, 32);
  EXPECT_EQ(plan_tma_rows(131072, 4).parts, kMaxParts);
}

TEST(TmaRowPlan, DeclinesWithReasons) {
  const Plan odd = plan_tma_rows(1001, 2);
  EXPECT_NE(odd.unsupported.find("N a multiple of 8"), std::string::npos) << odd.unsupported;
  const Plan too_long = plan_tma_rows(262144, 4);
  EXPECT_NE(too_long.unsupported.find("at most 131072"), std::string::npos) << too_long.unsupported;
  EXPECT_NE(plan_tma_rows(262144 + 8, 2).unsupported.find("at most 262144"), std::string::npos);
}

TEST(TmaRowPlan, EveryBandHasRows) {
  for (std::int64_t m : {1LL, 2LL, 5LL, 100LL, 4096LL, 1LL << 20})
    for (std::int64_t resident : {1LL, 7LL, 66LL, 132LL, 1000LL}) {
      const std::int64_t bands = band_count(m, resident);
      EXPECT_GE(bands, 1);
      EXPECT_LE(bands, resident);
      EXPECT_LE(bands, m) << "every band holds a row";
      if (m >= kMinBandRounds * resident) EXPECT_EQ(bands, resident) << "a cluster on every resident slot";
    }
}

}  // namespace
}  // namespace nb::rows::tma
