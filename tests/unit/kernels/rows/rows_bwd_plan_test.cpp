// The fused row backward's launch plans: every row length gets a plan that covers the row with the
// thread shapes its kernels assume (lane groups, cluster sizes, packs per thread, shared memory),
// and the band counts stay within the workspace; the same for the TMA-fed mode's plans.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "kernels/rows/rows_bwd/fused_plan.hpp"

namespace nb::rows_bwd {
namespace {

void expect_valid(const FusedPlan& plan, std::int64_t n, int sums) {
  SCOPED_TRACE("n=" + std::to_string(n) + " vec=" + std::to_string(plan.vec) + " sums=" + std::to_string(sums));
  ASSERT_TRUE(plan.unsupported.empty()) << plan.unsupported;
  EXPECT_EQ(plan.packs * plan.vec >= n && (plan.packs - 1) * plan.vec < n, true);
  EXPECT_EQ(plan.parts & (plan.parts - 1), 0);
  EXPECT_GE(plan.parts * plan.packs_per_part, plan.packs);
  EXPECT_GT(plan.packs - (plan.parts - 1) * plan.packs_per_part, 0) << "every part has packs";
  EXPECT_LE(plan.threads(), plan.streamed() ? kStreamLanes : kMaxLanes);
  if (plan.lanes <= 32) {
    EXPECT_EQ(plan.lanes & (plan.lanes - 1), 0) << "lane groups are powers of two";
    EXPECT_EQ(plan.parts, 1) << "lane groups never span a cluster";
    EXPECT_EQ(plan.threads(), kBlockThreads);
  } else {
    EXPECT_EQ(plan.lanes % 32, 0) << "row slots are whole warps";
  }
  if (plan.streamed()) {
    EXPECT_EQ(plan.rows_per_block, 1);
    EXPECT_LE(plan.parts, kMaxStreamParts);
    EXPECT_EQ(plan.shared_bytes, std::size_t(plan.part_elements()) * 4 * std::size_t(sums));
    EXPECT_LE(plan.shared_bytes, kStreamSharedBytes);
    return;
  }
  EXPECT_LE(plan.parts, kMaxRegisterParts);
  if (shared_column_sums(plan.packs_per_thread, plan.vec))
    EXPECT_EQ(plan.shared_bytes, std::size_t(plan.threads()) * plan.packs_per_thread * plan.vec * 4 * std::size_t(sums));
  else
    EXPECT_EQ(plan.shared_bytes, 0u);
  EXPECT_LE(plan.shared_bytes, kStreamSharedBytes) << "within an SM's shared memory";
  EXPECT_EQ(plan.packs_per_thread & (plan.packs_per_thread - 1), 0) << "instances exist for powers of two";
  EXPECT_LE(plan.vec * plan.packs_per_thread, kMaxElementsPerThread);
  EXPECT_GE(std::int64_t(plan.lanes) * plan.packs_per_thread, plan.packs_per_part);
}

TEST(RowsBwdFusedPlan, EveryLengthIsCovered) {
  for (int sums : {1, 2})
    for (std::int64_t n = 1; n <= 140000; n += (n < 5000 ? 1 : 37)) {
      expect_valid(plan_fused(n, 1, sums), n, sums);
      for (int vec : {4, 8})
        if (n % vec == 0) expect_valid(plan_fused(n, vec, sums), n, sums);
    }
  for (int sums : {1, 2})
    for (std::int64_t n : {262144LL, 262152LL, 327680LL}) {
      expect_valid(plan_fused(n, 8, sums), n, sums);
      expect_valid(plan_fused(n, 1, sums), n, sums);
    }
}

TEST(RowsBwdFusedPlan, KnownShapes) {
  const FusedPlan hidden4096 = plan_fused(4096, 8, 2);  // bf16: one pack per thread
  EXPECT_EQ(hidden4096.parts, 1);
  EXPECT_EQ(hidden4096.lanes, 512);
  EXPECT_EQ(hidden4096.rows_per_block, 1);
  EXPECT_EQ(hidden4096.packs_per_thread, 1);
  EXPECT_EQ(hidden4096.shared_bytes, 0u) << "one pack's raw words: the column sums in registers";

  const FusedPlan hidden8192 = plan_fused(8192, 4, 2);  // fp32: two packs per thread, two CTAs per row
  EXPECT_EQ(hidden8192.parts, 2);
  EXPECT_EQ(hidden8192.lanes, 512);
  EXPECT_EQ(hidden8192.packs_per_thread, 2);
  EXPECT_EQ(hidden8192.shared_bytes, 512u * 8 * 4 * 2) << "two packs' raw words: the column sums in shared memory";

  const FusedPlan short_rows = plan_fused(256, 8, 2);
  EXPECT_EQ(short_rows.lanes, 32);
  EXPECT_EQ(short_rows.rows_per_block, 8);

  const FusedPlan one = plan_fused(1, 1, 2);
  EXPECT_EQ(one.lanes, 1);
  EXPECT_EQ(one.rows_per_block, kBlockThreads);

  const FusedPlan in_registers = plan_fused(32768, 8, 2);
  EXPECT_FALSE(in_registers.streamed());
  EXPECT_EQ(in_registers.parts, 8);
  const FusedPlan widest_in_registers = plan_fused(65536, 8, 2);  // 8 parts of 1024 lanes
  EXPECT_FALSE(widest_in_registers.streamed());
  EXPECT_EQ(widest_in_registers.lanes, kMaxLanes);
  const FusedPlan sixteen_parts = plan_fused(131072, 8, 2);  // a non-portable cluster of 1024 lanes
  EXPECT_FALSE(sixteen_parts.streamed());
  EXPECT_EQ(sixteen_parts.parts, kMaxRegisterParts);
  EXPECT_EQ(sixteen_parts.lanes, kMaxLanes);

  const FusedPlan rms_longest = plan_fused(262144, 8, 1);
  EXPECT_TRUE(rms_longest.streamed());
  EXPECT_EQ(rms_longest.parts, 8);
  const FusedPlan layer_longest = plan_fused(262144, 8, 2);
  EXPECT_TRUE(layer_longest.streamed());
  EXPECT_EQ(layer_longest.parts, 16);
}

TEST(RowsBwdFusedPlan, RowsPastSharedMemorySayWhy) {
  const FusedPlan too_long = plan_fused(1 << 20, 8, 2);
  EXPECT_FALSE(too_long.unsupported.empty());
  EXPECT_NE(too_long.unsupported.find("shared memory"), std::string::npos) << too_long.unsupported;
  EXPECT_TRUE(plan_fused(1 << 19, 8, 1).unsupported.empty());
}

// The TMA-fed mode: rows of 16-byte packs over parts of whole warps, two packs a thread (the
// longest rows four), no idle warp and no producer warp (thread 0 copies), and stages (aligned by
// the kernel's declaration, no slack in the plan) that also hold the end's column sums: one more
// where fp32's rows over a cluster of 16 go one ahead, three of twice the size at four packs
// (LayerNorm's w after them).
void expect_valid_tma(const FusedPlan& plan, std::int64_t n, int column_sums) {
  SCOPED_TRACE("n=" + std::to_string(n) + " vec=" + std::to_string(plan.vec) + " column sums=" + std::to_string(column_sums));
  ASSERT_TRUE(plan.unsupported.empty()) << plan.unsupported;
  EXPECT_EQ(plan.packs * plan.vec, n);
  EXPECT_EQ(plan.parts & (plan.parts - 1), 0);
  EXPECT_LE(plan.parts, kMaxRegisterParts);
  EXPECT_GE(plan.parts * plan.packs_per_part, plan.packs);
  EXPECT_GT(plan.packs - (plan.parts - 1) * plan.packs_per_part, 0) << "every part has packs";
  const int consumers = plan.lanes;
  EXPECT_EQ(consumers % 32, 0);
  EXPECT_GE(consumers, 32);
  EXPECT_LE(consumers, kTmaMaxConsumers);
  EXPECT_EQ(plan.rows_per_block, 1);
  const bool wide = plan.packs_per_thread == kTmaWidePacksPerThread;
  EXPECT_TRUE(plan.packs_per_thread == kTmaPacksPerThread || wide) << plan.packs_per_thread;
  // Four packs a thread for RMSNorm where two would take 16 parts or more, for LayerNorm where two
  // do not reach.
  const std::int64_t two_packs_of_8_parts = std::int64_t(kMaxRegisterParts / 2) * kTmaMaxConsumers * kTmaPacksPerThread;
  EXPECT_EQ(wide, plan.packs > (column_sums == 1 ? two_packs_of_8_parts : 2 * two_packs_of_8_parts));
  EXPECT_GE(std::int64_t(consumers) * plan.packs_per_thread, plan.packs_per_part);
  EXPECT_LT(std::int64_t(consumers - 32) * plan.packs_per_thread, plan.packs_per_part) << "no consumer warp idle";
  EXPECT_EQ(plan.one_ahead, (plan.parts == kMaxRegisterParts && plan.vec == 4) || wide) << "fp32 over 16 parts";
  if (plan.one_ahead) {
    EXPECT_GE(plan.parts, 8) << "one ahead only over clusters of 8 or 16 (their totals folded across lanes)";
  }
  const std::size_t one_stage = 2 * std::size_t(plan.packs_per_part) * 16;
  EXPECT_EQ(plan.stages, wide ? kTmaWideStages : plan.one_ahead ? kTmaAheadStages : kTmaStages);
  const std::size_t stage_bytes = std::size_t(plan.stages) * one_stage;
  const std::size_t w_bytes = wide && column_sums == 2 ? std::size_t(plan.packs_per_part) * 16 : 0;  // LayerNorm's w
  // RMSNorm's in-turn rows of one or two parts of a warp's two packs a lane or more start their
  // stages at run time, kTmaStageAlign bytes on.
  EXPECT_EQ(plan.stages_aligned_at_run_time, column_sums == 1 && !plan.one_ahead && plan.parts <= 2 &&
                                                 plan.packs_per_part >= 32 * kTmaPacksPerThread);
  EXPECT_EQ(plan.shared_bytes, stage_bytes + w_bytes + (plan.stages_aligned_at_run_time ? kTmaStageAlign : 0));
  EXPECT_LE(plan.shared_bytes + (plan.one_ahead ? kTmaStaticBytes : kTmaInTurnStaticBytes), kMaxSharedBytesPerBlock)
      << "within a block's shared memory";
  EXPECT_LE(std::size_t(plan.part_elements()) * 4, stage_bytes) << "the end's sums fit the stages";
}

TEST(RowsBwdFusedTmaPlan, EveryPackedLengthIsCovered) {
  for (int column_sums : {1, 2})
    for (int vec : {4, 8}) {
      const std::int64_t longest = std::int64_t(kMaxRegisterParts) * kTmaMaxConsumers * kTmaWidePacksPerThread * vec;
      for (std::int64_t n = vec; n <= longest; n += vec * (n < 20000 ? 1 : 29))
        expect_valid_tma(plan_fused_tma(n, vec, column_sums), n, column_sums);
      expect_valid_tma(plan_fused_tma(longest, vec, column_sums), longest, column_sums);
    }
}

TEST(RowsBwdFusedTmaPlan, KnownShapes) {
  const FusedPlan bf16_16384 = plan_fused_tma(16384, 8, 2);  // two parts of 512 consumers
  EXPECT_EQ(bf16_16384.parts, 2);
  EXPECT_EQ(bf16_16384.lanes, kTmaMaxConsumers);
  EXPECT_FALSE(bf16_16384.one_ahead);
  EXPECT_EQ(bf16_16384.shared_bytes, 96u * 1024);  // three stages of 16 KB of x and 16 KB of dy
  const FusedPlan bf16_1024 = plan_fused_tma(1024, 8, 2);  // two warps of 16 elements a thread
  EXPECT_EQ(bf16_1024.parts, 1);
  EXPECT_EQ(bf16_1024.lanes, 64);
  EXPECT_EQ(bf16_1024.shared_bytes, 3u * 4 * 1024);  // three stages of 2 KB of x and 2 KB of dy
  const FusedPlan fp32_8192 = plan_fused_tma(8192, 4, 2);
  EXPECT_EQ(fp32_8192.parts, 2);
  EXPECT_EQ(fp32_8192.lanes, kTmaMaxConsumers);
  const FusedPlan ln_131072 = plan_fused_tma(131072, 8, 2);  // LayerNorm bf16: 16 parts, in turn
  EXPECT_EQ(ln_131072.parts, kMaxRegisterParts);
  EXPECT_FALSE(ln_131072.one_ahead);
  EXPECT_EQ(ln_131072.shared_bytes, 3u * 32 * 1024);  // three stages of 16 KB of x and 16 KB of dy
  const FusedPlan ln_fp32_65536 = plan_fused_tma(65536, 4, 2);  // LayerNorm fp32: 16 parts, one ahead
  EXPECT_EQ(ln_fp32_65536.parts, kMaxRegisterParts);
  EXPECT_TRUE(ln_fp32_65536.one_ahead);
  EXPECT_EQ(ln_fp32_65536.shared_bytes, 4u * 32 * 1024);  // four stages of 16 KB of x and 16 KB of dy
  const FusedPlan rms_65536 = plan_fused_tma(65536, 8, 1);  // two packs while 8 parts reach, in turn
  EXPECT_EQ(rms_65536.packs_per_thread, kTmaPacksPerThread);
  EXPECT_EQ(rms_65536.parts, 8);
  EXPECT_FALSE(rms_65536.one_ahead);
  EXPECT_FALSE(rms_65536.stages_aligned_at_run_time);  // declared over clusters of 4-16
  const FusedPlan rms_16384 = plan_fused_tma(16384, 8, 1);  // RMSNorm's two parts: stages at run time
  EXPECT_EQ(rms_16384.parts, 2);
  EXPECT_TRUE(rms_16384.stages_aligned_at_run_time);
  EXPECT_EQ(rms_16384.shared_bytes, 96u * 1024 + kTmaStageAlign);
  EXPECT_FALSE(bf16_16384.stages_aligned_at_run_time) << "LayerNorm's stages stay declared";
  EXPECT_FALSE(plan_fused_tma(256, 8, 1).stages_aligned_at_run_time) << "half a warp's packs: declared";
  EXPECT_TRUE(plan_fused_tma(512, 8, 1).stages_aligned_at_run_time);
  const FusedPlan rms_131072 = plan_fused_tma(131072, 8, 1);  // four packs over 8 parts, not two over 16
  EXPECT_EQ(rms_131072.packs_per_thread, kTmaWidePacksPerThread);
  EXPECT_EQ(rms_131072.parts, 8);
  EXPECT_TRUE(rms_131072.one_ahead);
  const FusedPlan rms_262144 = plan_fused_tma(262144, 8, 1);  // RMSNorm: 16 parts of four packs a thread
  EXPECT_EQ(rms_262144.packs_per_thread, kTmaWidePacksPerThread);
  EXPECT_EQ(rms_262144.lanes, kTmaMaxConsumers);
  EXPECT_EQ(rms_262144.shared_bytes, 3u * 64 * 1024);  // three stages of 32 KB of x and 32 KB of dy
  const FusedPlan ln_262144 = plan_fused_tma(262144, 8, 2);  // LayerNorm past two packs' reach: four, w shared
  EXPECT_EQ(ln_262144.packs_per_thread, kTmaWidePacksPerThread);
  EXPECT_EQ(ln_262144.parts, kMaxRegisterParts);
  EXPECT_TRUE(ln_262144.one_ahead);
  EXPECT_EQ(ln_262144.shared_bytes, 3u * 64 * 1024 + 32 * 1024);  // the stages, then 32 KB of w
}

TEST(RowsBwdFusedTmaPlan, DeclinesWithReasons) {
  const FusedPlan odd = plan_fused_tma(1001, 1, 1);
  EXPECT_NE(odd.unsupported.find("16-byte packs"), std::string::npos) << odd.unsupported;
  for (int column_sums : {1, 2}) {
    const FusedPlan too_long = plan_fused_tma(262144 + 8, 8, column_sums);
    EXPECT_NE(too_long.unsupported.find("at most 262144"), std::string::npos) << too_long.unsupported;
    EXPECT_NE(plan_fused_tma(131072 + 4, 4, column_sums).unsupported.find("at most 131072"), std::string::npos);
  }
}

TEST(RowsBwdFusedPlan, BandsFitTheWorkspaceAndEveryBandHasRows) {
  for (std::int64_t m : {1LL, 2LL, 7LL, 100LL, 3000LL, 4096LL, 32768LL, 1LL << 20})
    for (std::int64_t n : {1LL, 64LL, 4096LL, 262144LL}) {
      const FusedPlan plan = plan_fused(n, 1, 2);
      for (std::int64_t resident : {1LL, 132LL, 528LL, 100000LL}) {
        const std::int64_t bands = band_count(m, plan, resident);
        EXPECT_GE(bands, 1);
        EXPECT_LE(bands, resident);
        EXPECT_LE(bands, max_band_count(m, plan));
        EXPECT_LE(bands, m) << "a band without rows";
        EXPECT_LE(max_band_count(m, plan), (m + kMinBandRounds - 1) / kMinBandRounds) << "the workspace's bound";
      }
    }
}

// Dealt bands (band b: rows b, b + bands, ...) take every row once, and their counts differ by at
// most one, so no CTA of the grid waits long on the others at the end.
TEST(RowsBwdFusedPlan, DealtBandsTakeEveryRowOnce) {
  for (std::int64_t m : {1LL, 2LL, 7LL, 100LL, 3000LL, 4099LL, 262144LL})
    for (std::int64_t bands : {1LL, 2LL, 3LL, 7LL, 132LL, 792LL, 2048LL}) {
      if (bands > m) continue;  // band_count never gives a band without rows
      SCOPED_TRACE("m=" + std::to_string(m) + " bands=" + std::to_string(bands));
      std::vector<int> taken(std::size_t(m), 0);
      std::int64_t fewest = m, most = 0;
      for (std::int64_t band = 0; band < bands; ++band) {
        const std::int64_t rows = band_rows(m, band, bands);
        for (std::int64_t r = 0; r < rows; ++r) {
          const std::int64_t row = band_row(band, bands, r);
          ASSERT_LT(row, m);
          ++taken[std::size_t(row)];
        }
        EXPECT_GE(band_row(band, bands, rows), m) << "band " << band << " stops before its last row";
        fewest = std::min(fewest, rows), most = std::max(most, rows);
      }
      EXPECT_EQ(std::count(taken.begin(), taken.end(), 1), m) << "every row once";
      EXPECT_LE(most - fewest, 1);
    }
  EXPECT_EQ(band_rows(5, 7, 8), 0) << "a band past the rows has none";
}

}  // namespace
}  // namespace nb::rows_bwd
