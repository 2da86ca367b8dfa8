// rmsnorm_rows register_row: every row length gets a launch plan that covers the row with the
// thread shapes its kernels assume (lane groups, cluster sizes, packs per thread).
#include <gtest/gtest.h>

#include "kernels/rmsnorm_rows/row_plan.hpp"

namespace nb::rmsnorm_rows {
namespace {

void expect_valid(const RowPlan& plan, std::int64_t n) {
  SCOPED_TRACE("n=" + std::to_string(n) + " vec=" + std::to_string(plan.vec));
  EXPECT_GE(plan.parts, 1);
  EXPECT_LE(plan.parts, kMaxParts);
  EXPECT_EQ(plan.parts & (plan.parts - 1), 0);
  EXPECT_GE(plan.parts * plan.packs_per_part, plan.packs);
  EXPECT_GT(plan.packs - (plan.parts - 1) * plan.packs_per_part, 0) << "every part has packs";
  if (plan.lane_groups()) {
    EXPECT_EQ(plan.parts, 1);
    EXPECT_LE(plan.lanes, 32);
    EXPECT_EQ(plan.lanes & (plan.lanes - 1), 0) << "lane groups are powers of two";
    EXPECT_EQ(plan.lanes * plan.rows_per_block, kLaneGroupThreads);
  } else {
    EXPECT_EQ(plan.rows_per_block, 1);
    EXPECT_EQ(plan.lanes % 32, 0);
    EXPECT_LE(plan.lanes, kMaxLanes);
  }
  if (plan.streamed()) return;
  EXPECT_EQ(plan.packs_per_thread & (plan.packs_per_thread - 1), 0) << "instances exist for powers of two";
  EXPECT_LE(plan.vec * plan.packs_per_thread, max_floats_per_thread(plan.vec));
  EXPECT_GE(static_cast<std::int64_t>(plan.lanes) * plan.packs_per_thread, plan.packs_per_part);
  EXPECT_GE(plan.capacity(), n);
}

TEST(RmsNormRowPlan, EveryLengthIsCovered) {
  for (std::int64_t n = 1; n <= 70000; n += (n < 5000 ? 1 : 37)) {
    expect_valid(plan_register_row(n, false), n);
    if (n % 4 == 0) expect_valid(plan_register_row(n, true), n);
  }
  for (std::int64_t n : {262144LL, 262148LL, 524288LL, 1LL << 30}) expect_valid(plan_register_row(n, true), n);
}

TEST(RmsNormRowPlan, KnownShapes) {
  const RowPlan hidden4096 = plan_register_row(4096, true);
  EXPECT_EQ(hidden4096.parts, 1);
  EXPECT_EQ(hidden4096.lanes, 128);
  EXPECT_EQ(hidden4096.packs_per_thread, 8);

  const RowPlan hidden8192 = plan_register_row(8192, true);
  EXPECT_EQ(hidden8192.lanes, 256);
  EXPECT_EQ(hidden8192.parts, 1);

  const RowPlan short_rows = plan_register_row(256, true);
  EXPECT_TRUE(short_rows.lane_groups());
  EXPECT_EQ(short_rows.lanes, 8);

  const RowPlan longest_in_registers = plan_register_row(262144, true);
  EXPECT_EQ(longest_in_registers.parts, 8);
  EXPECT_EQ(longest_in_registers.lanes, 1024);
  EXPECT_FALSE(longest_in_registers.streamed());

  EXPECT_TRUE(plan_register_row(524288, true).streamed());
  EXPECT_EQ(plan_register_row(65537, false).parts, 8);
  EXPECT_FALSE(plan_register_row(65537, false).streamed());
  EXPECT_TRUE(plan_register_row(262147, false).streamed());

  const RowPlan odd = plan_register_row(4097, false);  // single floats, 16 per thread, one block
  EXPECT_EQ(odd.parts, 1);
  EXPECT_EQ(odd.lanes, 288);
  EXPECT_EQ(odd.packs_per_thread, 16);
}

}  // namespace
}  // namespace nb::rmsnorm_rows
