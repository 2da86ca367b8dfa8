// The row planning of the register_row variants (rmsnorm_rows, layernorm_rows): every row
// length, in 4-byte (fp32) and 2-byte (bf16, fp16) storage, gets a launch plan that covers the
// row with the thread shapes its kernels assume (lane groups, cluster sizes, packs per thread,
// shared-memory slices).
#include <gtest/gtest.h>

#include "kernels/rows/row_plan.hpp"

namespace nb::rows {
namespace {

void expect_valid(const RowPlan& plan, std::int64_t n, int element_bytes, bool packs16) {
  SCOPED_TRACE("n=" + std::to_string(n) + " element_bytes=" + std::to_string(element_bytes) +
               " vec=" + std::to_string(plan.vec));
  EXPECT_EQ(plan.element_bytes, element_bytes);
  EXPECT_EQ(plan.pack_bytes(), packs16 ? kPackBytes : element_bytes);
  EXPECT_EQ(plan.packs, (n + plan.vec - 1) / plan.vec);
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
  if (plan.layout == RowLayout::block) {
    EXPECT_EQ(plan.parts, 1);
  }
  if (plan.layout == RowLayout::cluster) {
    EXPECT_GT(plan.parts, 1);
  }
  if (plan.streamed()) return;
  EXPECT_GE(static_cast<std::int64_t>(plan.lanes) * plan.packs_per_thread, plan.packs_per_part);
  EXPECT_GE(plan.capacity(), n);
  if (plan.held_split()) {
    EXPECT_EQ(element_bytes, 2) << "two values a register";
    EXPECT_TRUE(packs16) << "cp.async copies 16-byte packs";
    EXPECT_GT(n, held_block_elements(element_bytes, plan.vec)) << "rows a held block holds stay in registers";
    EXPECT_LE(n, held_split_elements(element_bytes, plan.vec));
    EXPECT_EQ(plan.parts, 1);
    EXPECT_EQ(plan.packs_per_thread, 2 * kHeldSplitPacks) << "half held, half in the thread's slots";
    EXPECT_LE(plan.lanes, kMaxRegisterBlockLanes) << "the held split kernels' launch bound";
    EXPECT_LT(std::int64_t(plan.lanes - 32) * plan.packs_per_thread, plan.packs) << "no warp without a pack";
    EXPECT_LE(plan.held_split_smem_bytes(), kMaxHeldSplitSmemBytes);
    return;
  }
  if (plan.staged()) {
    EXPECT_TRUE(packs16) << "cp.async copies 16-byte packs";
    EXPECT_GT(n, held_block_elements(element_bytes, plan.vec)) << "rows that fit a block's registers stay there";
    EXPECT_LE(plan.packs_per_part * plan.pack_bytes(), kMaxStagedSliceBytes);
    EXPECT_LE(plan.staged_smem_bytes(), kStagedSlices * kMaxStagedSliceBytes);
    EXPECT_LE(plan.packs_per_thread, kStagedPacksPerThread) << "LayerNorm's staged kernel holds that many packs of b";
    EXPECT_LE(plan.lanes, kMaxStagedLanes) << "layernorm_rows' staged kernel's launch bound";
    if (plan.parts < kMaxParts) {
      EXPECT_LE(plan.packs_per_part * plan.pack_bytes(), kStagedSliceBytes);
    }
    return;
  }
  EXPECT_EQ(plan.packs_per_thread & (plan.packs_per_thread - 1), 0) << "instances exist for powers of two";
  EXPECT_LE(plan.vec * plan.packs_per_thread, max_held_elements_per_thread(element_bytes, plan.vec))
      << "the register budget";
  if (plan.vec * plan.packs_per_thread > max_elements_per_thread(plan.vec)) {  // held two values a register
    EXPECT_EQ(plan.layout, RowLayout::block) << "only one block's rows take the held budget";
    EXPECT_GT(n, block_elements(plan.vec)) << "rows that fit the 32-value budget keep it";
  }
}

void expect_valid_plans(std::int64_t n, int element_bytes) {
  const bool whole_packs = n % (kPackBytes / element_bytes) == 0;
  expect_valid(plan_register_row(n, element_bytes, false), n, element_bytes, false);
  if (!whole_packs) return;
  expect_valid(plan_register_row(n, element_bytes, true), n, element_bytes, true);
  const RowPlan without_held_split = plan_register_row(n, element_bytes, true, RowLayouts{}.without_held_split());
  EXPECT_FALSE(without_held_split.held_split());
  expect_valid(without_held_split, n, element_bytes, true);
  const RowPlan in_registers = plan_register_row(n, element_bytes, true, RowLayouts{}.without_staged());
  EXPECT_FALSE(in_registers.staged());
  expect_valid(in_registers, n, element_bytes, true);
  const RowPlan neither = plan_register_row(n, element_bytes, true, RowLayouts{}.without_staged().without_held_split());
  EXPECT_FALSE(neither.staged() || neither.held_split());
  expect_valid(neither, n, element_bytes, true);
}

TEST(RmsNormRowPlan, EveryLengthIsCoveredInEveryStorageSize) {
  for (int element_bytes : {4, 2}) {
    for (std::int64_t n = 1; n <= 70000; n += (n < 5000 ? 1 : 37)) expect_valid_plans(n, element_bytes);
    for (std::int64_t n : {131072LL, 262144LL, 262152LL, 524288LL, 1LL << 30}) expect_valid_plans(n, element_bytes);
  }
}

TEST(RmsNormRowPlan, KnownShapesFp32) {
  const RowPlan hidden4096 = plan_register_row(4096, 4, true);
  EXPECT_EQ(hidden4096.layout, RowLayout::block);
  EXPECT_EQ(hidden4096.lanes, 128);
  EXPECT_EQ(hidden4096.packs_per_thread, 8);

  const RowPlan hidden8192 = plan_register_row(8192, 4, true);
  EXPECT_EQ(hidden8192.lanes, 256);
  EXPECT_EQ(hidden8192.parts, 1);

  const RowPlan short_rows = plan_register_row(256, 4, true);
  EXPECT_TRUE(short_rows.lane_groups());
  EXPECT_EQ(short_rows.lanes, 8);

  const RowPlan hidden16384 = plan_register_row(16384, 4, true);  // 64 KB: the most one block holds
  EXPECT_EQ(hidden16384.layout, RowLayout::block);
  EXPECT_EQ(hidden16384.lanes, kMaxRegisterBlockLanes);
  EXPECT_EQ(hidden16384.packs_per_thread, 8);

  const RowPlan past_a_block = plan_register_row(16400, 4, true);  // 64 KB and a sliver: 4 slices of 16 KB
  EXPECT_TRUE(past_a_block.staged());
  EXPECT_EQ(past_a_block.parts, 4);
  EXPECT_EQ(past_a_block.lanes, 160);
  EXPECT_EQ(past_a_block.packs_per_thread, 7);

  const RowPlan staged_longest = plan_register_row(131072, 4, true);  // 512 KB: 8 slices of 64 KB
  EXPECT_TRUE(staged_longest.staged());
  EXPECT_EQ(staged_longest.parts, 8);
  EXPECT_EQ(staged_longest.lanes, 512);
  EXPECT_EQ(staged_longest.staged_smem_bytes(), 3 * 65536);

  const RowPlan longest_in_registers = plan_register_row(262144, 4, true);  // 1 MB: past the slices
  EXPECT_EQ(longest_in_registers.layout, RowLayout::cluster);
  EXPECT_EQ(longest_in_registers.parts, 8);
  EXPECT_EQ(longest_in_registers.lanes, 1024);

  EXPECT_TRUE(plan_register_row(524288, 4, true).streamed());
  EXPECT_EQ(plan_register_row(65537, 4, false).parts, 8);
  EXPECT_FALSE(plan_register_row(65537, 4, false).streamed());
  EXPECT_TRUE(plan_register_row(262147, 4, false).streamed());

  const RowPlan odd = plan_register_row(4097, 4, false);  // single floats, 16 per thread, one block
  EXPECT_EQ(odd.parts, 1);
  EXPECT_EQ(odd.lanes, 288);
  EXPECT_EQ(odd.packs_per_thread, 16);
}

// bf16 and fp16: 8 elements to a 16-byte pack, so 4 packs fill the 32-element budget; rows past it
// and up to 32768 take one block at 8 packs a thread, held two values a register; up to 65536, the
// held split (8 packs more in each thread's shared-memory slots) where the kernel family has it.
TEST(RmsNormRowPlan, KnownShapes2ByteStorage) {
  const RowPlan hidden1024 = plan_register_row(1024, 2, true);
  EXPECT_EQ(hidden1024.vec, 8);
  EXPECT_TRUE(hidden1024.lane_groups());
  EXPECT_EQ(hidden1024.lanes, 32);
  EXPECT_EQ(hidden1024.rows_per_block, 2);
  EXPECT_EQ(hidden1024.packs_per_thread, 4);

  const RowPlan hidden4096 = plan_register_row(4096, 2, true);
  EXPECT_EQ(hidden4096.layout, RowLayout::block);
  EXPECT_EQ(hidden4096.lanes, 128);
  EXPECT_EQ(hidden4096.packs_per_thread, 4);

  const RowPlan hidden8192 = plan_register_row(8192, 2, true);
  EXPECT_EQ(hidden8192.layout, RowLayout::block);
  EXPECT_EQ(hidden8192.lanes, 256);

  const RowPlan hidden16384 = plan_register_row(16384, 2, true);  // 32 KB: one block of 512 threads
  EXPECT_EQ(hidden16384.layout, RowLayout::block);
  EXPECT_EQ(hidden16384.lanes, kMaxRegisterBlockLanes);
  EXPECT_EQ(hidden16384.packs_per_thread, 4);

  const RowPlan past_a_block = plan_register_row(16400, 2, true);  // just over 32 KB: held, 8 packs a thread
  EXPECT_EQ(past_a_block.layout, RowLayout::block);
  EXPECT_EQ(past_a_block.lanes, 288);
  EXPECT_EQ(past_a_block.packs_per_thread, 8);

  const RowPlan held32768 = plan_register_row(32768, 2, true);  // 64 KB: the most one block holds
  EXPECT_EQ(held32768.layout, RowLayout::block);
  EXPECT_EQ(held32768.lanes, kMaxRegisterBlockLanes);
  EXPECT_EQ(held32768.packs_per_thread, 8);
  EXPECT_EQ(held32768.capacity(), 32768);

  const RowPlan past_held = plan_register_row(32776, 2, true);  // 64 KB and a pack: the held split
  EXPECT_TRUE(past_held.held_split());
  EXPECT_EQ(past_held.lanes, 288);  // 4097 packs at 16 a thread
  EXPECT_EQ(past_held.held_split_smem_bytes(), 288 * 8 * 16);
  const RowPlan past_held_staged = plan_register_row(32776, 2, true, RowLayouts{}.without_held_split());
  EXPECT_TRUE(past_held_staged.staged()) << "layernorm_rows: four slices";
  EXPECT_EQ(past_held_staged.parts, 4);
  EXPECT_EQ(past_held_staged.staged_smem_bytes(), 3 * 1025 * 16);

  const RowPlan split65536 = plan_register_row(65536, 2, true);  // 128 KB: the most the held split holds
  EXPECT_TRUE(split65536.held_split());
  EXPECT_EQ(split65536.lanes, kMaxRegisterBlockLanes);
  EXPECT_EQ(split65536.capacity(), 65536);
  EXPECT_EQ(split65536.held_split_smem_bytes(), kMaxHeldSplitSmemBytes);
  const RowPlan past_split = plan_register_row(65544, 2, true);  // and a pack: eight slices
  EXPECT_TRUE(past_split.staged());
  EXPECT_EQ(past_split.parts, 8);
  EXPECT_FALSE(plan_register_row(40008, 2, false).held_split()) << "no cp.async without 16-byte packs";

  const RowPlan hidden131072 = plan_register_row(131072, 2, true);
  EXPECT_TRUE(hidden131072.staged());
  EXPECT_EQ(hidden131072.parts, 8);
  EXPECT_EQ(hidden131072.packs_per_part * 16, 32768);

  const RowPlan longest_staged = plan_register_row(262144, 2, true);  // 512 KB: 8 slices of 64 KB
  EXPECT_TRUE(longest_staged.staged());
  EXPECT_EQ(longest_staged.parts, 8);
  EXPECT_EQ(longest_staged.lanes, 512);
  EXPECT_EQ(longest_staged.packs_per_thread, 8);
  // Rows from the counter where two blocks share an SM, by the fixed share where one fills it.
  EXPECT_TRUE(staged_rows_by_counter(past_split));
  EXPECT_TRUE(staged_rows_by_counter(hidden131072)) << "32 KB slices";
  EXPECT_FALSE(staged_rows_by_counter(longest_staged)) << "64 KB slices";
  EXPECT_FALSE(staged_rows_by_counter(plan_register_row(131072, 4, true))) << "fp32: 64 KB slices";

  EXPECT_TRUE(plan_register_row(524288, 2, true).streamed());  // 32 per thread x 1024 x 8 = 262144 < N

  // Without the staged clusters and the held split, rows over a block's registers split in
  // registers as in fp32.
  const RowLayouts registers_only = RowLayouts{}.without_staged().without_held_split();
  EXPECT_EQ(plan_register_row(32768, 2, true, registers_only).layout, RowLayout::block);
  const RowPlan in_registers = plan_register_row(65536, 2, true, registers_only);
  EXPECT_EQ(in_registers.layout, RowLayout::cluster);
  EXPECT_EQ(in_registers.parts, 4);
  EXPECT_EQ(in_registers.lanes, 512);

  const RowPlan odd = plan_register_row(4097, 2, false);  // single elements, 16 per thread
  EXPECT_EQ(odd.vec, 1);
  EXPECT_EQ(odd.lanes, 288);
  EXPECT_EQ(odd.packs_per_thread, 16);
  EXPECT_FALSE(plan_register_row(16388, 2, false).staged()) << "no cp.async without 16-byte packs";
}

}  // namespace
}  // namespace nb::rows
