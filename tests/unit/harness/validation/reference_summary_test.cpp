// ReferenceSummary::add_audits: the device reference's trials audited in two lanes (one audit may
// still run while the next trial's does) add up to what one summary of every trial holds.
#include <gtest/gtest.h>

#include "harness/validation/reference_summary.hpp"

namespace nb {
namespace {

ReferenceSummary audited(int trials, std::int64_t drawn, double normwise, double elementwise, double share,
                         std::int64_t slices) {
  ReferenceSummary s;
  s.computed_on = "device";
  s.families.push_back({"row", slices, 64, {"y"}});
  s.audited_trials = trials;
  s.drawn_elements_checked = drawn;
  s.worst_normwise = normwise;
  s.worst_elementwise = elementwise;
  s.worst_share_of_bound = share;
  return s;
}

TEST(ReferenceSummary, AddedAuditsSumTheirTrialsAndKeepTheWorstFigures) {
  ReferenceSummary total;
  total.computed_on = "device";
  total.add_audits(audited(1, 100, 1e-14, 3e-13, 0.02, 8));
  total.add_audits(audited(2, 250, 4e-15, 5e-13, 0.01, 8));
  EXPECT_EQ(total.computed_on, "device");
  EXPECT_EQ(total.audited_trials, 3);
  EXPECT_EQ(total.drawn_elements_checked, 350);
  EXPECT_DOUBLE_EQ(total.worst_normwise, 1e-14);
  EXPECT_DOUBLE_EQ(total.worst_elementwise, 5e-13);
  EXPECT_DOUBLE_EQ(total.worst_share_of_bound, 0.02);
  ASSERT_EQ(total.families.size(), 1u);
  EXPECT_EQ(total.families[0].slices, 8);
  EXPECT_FALSE(total.full());
}

TEST(ReferenceSummary, ALaneWithNoAuditYetChangesNothing) {
  ReferenceSummary total = audited(2, 10, 1e-15, 1e-14, 0.5, 64);
  total.add_audits(ReferenceSummary{});
  EXPECT_EQ(total.audited_trials, 2);
  EXPECT_EQ(total.drawn_elements_checked, 10);
  EXPECT_DOUBLE_EQ(total.worst_share_of_bound, 0.5);
  ASSERT_EQ(total.families.size(), 1u);
  EXPECT_TRUE(total.full());
}

}  // namespace
}  // namespace nb
