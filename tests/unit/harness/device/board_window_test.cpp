// The board's window over a case's samples: NVML counters' differences, the mean power from the
// energy, and no figure from a counter that is missing or went backwards.
#include <gtest/gtest.h>

#include "harness/device/board_window.hpp"

namespace nb {
namespace {

TEST(BoardWindow, PowerAndCapsAreTheCountersDifferences) {
  const BoardCounters before{1'000'000ull, 5'000'000ull, 0ull};
  const BoardCounters after{1'000'000ull + 70'000ull, 5'000'000ull + 2'500'000ull, 0ull};
  const BoardWindow w = board_window(before, after, 100.0);
  EXPECT_DOUBLE_EQ(w.window_ms, 100.0);
  ASSERT_TRUE(w.avg_power_w);
  EXPECT_DOUBLE_EQ(*w.avg_power_w, 700.0) << "70 J in 0.1 s";
  ASSERT_TRUE(w.power_capped_ms);
  EXPECT_DOUBLE_EQ(*w.power_capped_ms, 2.5);
  ASSERT_TRUE(w.thermal_capped_ms);
  EXPECT_DOUBLE_EQ(*w.thermal_capped_ms, 0.0) << "never capped: 0, not missing";
}

TEST(BoardWindow, AMissingOrShrinkingCounterGivesNoFigure) {
  const BoardCounters before{std::nullopt, 9'000ull, 100ull};
  const BoardCounters after{5'000ull, 1'000ull, 100ull};
  const BoardWindow w = board_window(before, after, 50.0);
  EXPECT_FALSE(w.avg_power_w) << "no energy reading before the samples";
  EXPECT_FALSE(w.power_capped_ms) << "a counter that went backwards (a driver reload) says nothing";
  ASSERT_TRUE(w.thermal_capped_ms);
  EXPECT_DOUBLE_EQ(*w.thermal_capped_ms, 0.0);
  EXPECT_FALSE(board_window(BoardCounters{1ull, 0ull, 0ull}, BoardCounters{2ull, 0ull, 0ull}, 0.0)
                   .avg_power_w)
      << "no time, no mean power";
}

}  // namespace
}  // namespace nb
