// The team-slice plan (batchnorm_train onchip_groups): it covers every channel with slices that fit
// the shared memory, never asks for more CTAs than are co-resident, and refuses what it cannot
// hold; the quick suite's shapes reach the paths the GPU tests must exercise.
#include <gtest/gtest.h>

#include <algorithm>

#include "kernels/primitives/team_slice_plan.hpp"

namespace nb {
namespace {

constexpr int kH100Ctas = 132;               // 132 SMs, one 512-thread CTA each
constexpr std::int64_t kH100Slice = 19328;  // floats per slice buffer: (227 KB - 512 B) / 3, in float4s

void expect_valid(const TeamSlicePlan& p, std::int64_t n, std::int64_t c, std::int64_t hw, int ctas,
                  std::int64_t slice_floats) {
  SCOPED_TRACE("n=" + std::to_string(n) + " c=" + std::to_string(c) + " hw=" + std::to_string(hw));
  ASSERT_TRUE(p.ok()) << p.refusal;
  EXPECT_TRUE(p.vec == 1 || (p.vec == 4 && hw % 4 == 0)) << p.vec;
  EXPECT_EQ(p.mv * p.vec, n * hw);
  EXPECT_GE(p.team, 1);
  EXPECT_LE(p.team, p.mv) << "every CTA's slice holds at least one vector";
  EXPECT_GE(p.teams, 1);
  EXPECT_LE(p.teams, c);
  EXPECT_LE(p.ctas(), ctas) << "the grid must be co-resident";
  EXPECT_LE(p.team, kMaxTeamCtas) << "warp 0 merges at most kMaxTeamCtas partials";
  EXPECT_GE(p.slice * p.team, p.mv) << "the slices cover the channel";
  EXPECT_LE(p.slice * p.vec, slice_floats) << "a slice fits its buffer";
  EXPECT_GE(p.waves * p.teams, c) << "the waves cover every channel";
  EXPECT_LT((p.waves - 1) * p.teams, c) << "no empty wave";
}

TEST(TeamSlicePlan, CoversEveryFittingShape) {
  for (std::int64_t n : {1, 2, 3, 16, 64})
    for (std::int64_t c : {1, 2, 7, 64, 133, 300})
      for (std::int64_t hw : {2, 3, 4, 25, 128, 1024, 16129, 65536})
        for (int ctas : {1, 8, 132, 264}) {
          const TeamSlicePlan p = plan_team_slices(n, c, hw, ctas, kH100Slice, true, "channel");
          if (p.ok())
            expect_valid(p, n, c, hw, ctas, kH100Slice);
          else
            EXPECT_GT(n * hw, std::int64_t(std::min(ctas, kMaxTeamCtas)) * kH100Slice)
                << "refused although a channel fits a team";
        }
}

TEST(TeamSlicePlan, KernelBenchShapes) {
  // 16x64x256x256: 4 MB channels, 55 CTAs at least; two channels per wave on 66 CTAs each
  // (62 KB slices, 32 waves) moves the fewest bytes per CTA.
  const TeamSlicePlan small = plan_team_slices(16, 64, 256 * 256, kH100Ctas, kH100Slice, true, "channel");
  expect_valid(small, 16, 64, 256 * 256, kH100Ctas, kH100Slice);
  EXPECT_EQ(small.teams, 2);
  EXPECT_EQ(small.team, 66);
  EXPECT_EQ(small.waves, 32);
  // 64x64x512x512: a 67 MB channel against the 10 MB that 132 CTAs hold in one buffer each.
  const TeamSlicePlan large = plan_team_slices(64, 64, 512 * 512, kH100Ctas, kH100Slice, true, "channel");
  EXPECT_FALSE(large.ok());
  EXPECT_NE(large.refusal.find("67 MB"), std::string::npos) << large.refusal;
}

TEST(TeamSlicePlan, QuickShapesReachSeveralWavesAndTeams) {
  // n2 c200 h8 w8: more channels than CTAs, one CTA each: two waves, float4 copies.
  const TeamSlicePlan wide = plan_team_slices(2, 200, 64, kH100Ctas, kH100Slice, true, "channel");
  expect_valid(wide, 2, 200, 64, kH100Ctas, kH100Slice);
  EXPECT_EQ(wide.vec, 4);
  EXPECT_GE(wide.waves, 2);
  // n2 c67 h121 w121: a channel of 29282 floats is more than a buffer holds (19328), so
  // teams of several CTAs (the team barrier), more channels than teams (a second wave), scalar
  // copies.
  const TeamSlicePlan teams = plan_team_slices(2, 67, 121 * 121, kH100Ctas, kH100Slice, true, "channel");
  expect_valid(teams, 2, 67, 121 * 121, kH100Ctas, kH100Slice);
  EXPECT_EQ(teams.vec, 1);
  EXPECT_GE(teams.team, 2);
  EXPECT_GE(teams.waves, 2);
  // n256 c1 h64 w64: one 4 MB channel over the whole grid.
  const TeamSlicePlan whole_grid = plan_team_slices(256, 1, 4096, kH100Ctas, kH100Slice, true, "channel");
  expect_valid(whole_grid, 256, 1, 4096, kH100Ctas, kH100Slice);
  EXPECT_EQ(whole_grid.team, kH100Ctas);
  // n16 c64 h32 w32: one wave, teams of two.
  const TeamSlicePlan one_wave = plan_team_slices(16, 64, 1024, kH100Ctas, kH100Slice, true, "channel");
  expect_valid(one_wave, 16, 64, 1024, kH100Ctas, kH100Slice);
  EXPECT_GE(one_wave.team, 2);
}

TEST(TeamSlicePlan, TeamsStayWithinWhatWarpZeroMerges) {
  // 264 co-resident CTAs (a GPU of 264 SMs): one 4 MB channel takes 160 of them, not 264.
  const TeamSlicePlan one = plan_team_slices(256, 1, 4096, 264, kH100Slice, true, "channel");
  expect_valid(one, 256, 1, 4096, 264, kH100Slice);
  EXPECT_EQ(one.team, kMaxTeamCtas);
  // A channel more than 160 slices hold is refused even where more CTAs are resident.
  const TeamSlicePlan beyond = plan_team_slices(1, 1, 4 * (kMaxTeamCtas * kH100Slice / 4 + 1), 264, kH100Slice,
                                                true, "channel");
  EXPECT_FALSE(beyond.ok());
  EXPECT_NE(beyond.refusal.find("160 CTAs"), std::string::npos) << beyond.refusal;
}

TEST(TeamSlicePlan, MisalignedTensorsTakeSingleFloats) {
  const TeamSlicePlan aligned = plan_team_slices(16, 64, 1024, kH100Ctas, kH100Slice, true, "channel");
  const TeamSlicePlan misaligned = plan_team_slices(16, 64, 1024, kH100Ctas, kH100Slice, false, "channel");
  EXPECT_EQ(aligned.vec, 4);
  EXPECT_EQ(misaligned.vec, 1);
  expect_valid(misaligned, 16, 64, 1024, kH100Ctas, kH100Slice);
}

TEST(TeamSlicePlan, RefusesWhatItCannotHold) {
  EXPECT_FALSE(plan_team_slices(4, 8, 1000, 0, kH100Slice, true, "channel").ok()) << "no co-resident CTA";
  EXPECT_FALSE(plan_team_slices(4, 8, 1000, 132, 0, true, "channel").ok()) << "no shared memory";
  const TeamSlicePlan exact = plan_team_slices(1, 1, kH100Slice * 2, 2, kH100Slice, true, "channel");
  EXPECT_TRUE(exact.ok()) << exact.refusal;
  EXPECT_FALSE(plan_team_slices(1, 1, kH100Slice * 2 + 4, 2, kH100Slice, true, "channel").ok());
}

}  // namespace
}  // namespace nb
