// softmax launch plans: the pack width every row allows, onchip's cluster and slice per storage
// size, and the dispatch variant's choice of path, covering every row length with the thread
// shapes its kernels assume.
#include <gtest/gtest.h>

#include <string>

#include "kernels/softmax/launch_plan.hpp"

namespace nb::softmax {
namespace {

constexpr int kFp32 = 4, kHalf = 2;  // element bytes: fp32, and bf16 or fp16

TEST(SoftmaxPackWidth, WidestPackEveryRowStartsOn) {
  EXPECT_EQ(row_pack_width(1024, kFp32, 0, 256), 4);
  EXPECT_EQ(row_pack_width(1024, kHalf, 0, 256), 8);
  EXPECT_EQ(row_pack_width(1002, kFp32, 0, 0), 2);  // 1002 % 4 = 2
  EXPECT_EQ(row_pack_width(1002, kHalf, 0, 0), 2);
  EXPECT_EQ(row_pack_width(1004, kHalf, 0, 0), 4);  // 8 bytes
  EXPECT_EQ(row_pack_width(4097, kFp32, 0, 0), 1);
  EXPECT_EQ(row_pack_width(300001, kHalf, 0, 0), 1);
  EXPECT_EQ(row_pack_width(1, kHalf, 0, 0), 1);
  // Buffers off 16 bytes narrow the pack even when n would allow 16 bytes.
  EXPECT_EQ(row_pack_width(1024, kFp32, 8, 0), 2);
  EXPECT_EQ(row_pack_width(1024, kHalf, 0, 4), 2);
  EXPECT_EQ(row_pack_width(1024, kHalf, 2, 0), 1);
}

TEST(SoftmaxPackWidth, RowsStartAlignedToThePack) {
  for (int bytes : {kFp32, kHalf})
    for (std::int64_t n = 1; n <= 100; ++n)
      for (std::uintptr_t off : {0u, 2u, 4u, 8u, 12u}) {
        if (off % bytes) continue;  // an element is always aligned to its size
        const int vec = row_pack_width(n, bytes, 4096 + off, 8192);
        ASSERT_GE(vec, 1);
        ASSERT_EQ(n % vec, 0) << n;
        for (std::int64_t row = 0; row < 3; ++row)
          ASSERT_EQ((4096 + off + std::uintptr_t(row * n * bytes)) % std::uintptr_t(vec * bytes), 0u)
              << n << " " << off;
      }
}

void expect_valid(const OnchipPlan& cp, std::int64_t n, int bytes) {
  SCOPED_TRACE("n=" + std::to_string(n) + " bytes=" + std::to_string(bytes));
  EXPECT_GE(cp.cluster, 1);
  EXPECT_LE(cp.cluster, kMaxCluster);
  EXPECT_EQ(cp.cluster & (cp.cluster - 1), 0);
  EXPECT_EQ(cp.slice * bytes % 16, 0) << "each CTA's part starts on 16 bytes when the row does";
  EXPECT_GE(cp.cluster * cp.slice, n);
  EXPECT_LT((cp.cluster - 1) * cp.slice, n) << "no CTA of the cluster is left without elements";
  EXPECT_EQ(cp.fits, cp.slice * bytes <= kSliceCapBytes);
  EXPECT_EQ(cp.threads % 32, 0);
  EXPECT_GE(cp.threads, 64);
  EXPECT_LE(cp.threads, 512);
  if (cp.cluster > 1 && cp.cluster < kMaxCluster) {
    EXPECT_LE(cp.slice * bytes, kHalfSliceCapBytes + 16);
  }
}

TEST(SoftmaxOnchipPlan, EveryLengthIsCovered) {
  for (int bytes : {kFp32, kHalf})
    for (std::int64_t n = 1; n <= 800000; n += (n < 3000 ? 1 : 997)) expect_valid(plan_onchip(n, bytes), n, bytes);
}

// The fp32 plans are the ones measured on the H100 (docs/notes/softmax.md); narrow types size
// their slices in bytes the same way, so a bf16 row fits twice as many elements.
TEST(SoftmaxOnchipPlan, KnownShapes) {
  const OnchipPlan kb = plan_onchip(393216, kFp32);
  EXPECT_EQ(kb.cluster, 8);
  EXPECT_EQ(kb.slice, 49152);
  EXPECT_EQ(kb.kind, SliceClass::upto192k);
  EXPECT_EQ(kb.threads, 512);
  EXPECT_TRUE(kb.fits);
  EXPECT_FALSE(plan_onchip(393217, kFp32).fits);

  const OnchipPlan n65536 = plan_onchip(65536, kFp32);
  EXPECT_EQ(n65536.cluster, 4);
  EXPECT_EQ(n65536.slice, 16384);
  EXPECT_EQ(n65536.kind, SliceClass::upto64k);
  EXPECT_EQ(n65536.threads, 512);

  const OnchipPlan n8192 = plan_onchip(8192, kFp32);
  EXPECT_EQ(n8192.cluster, 1);
  EXPECT_EQ(n8192.kind, SliceClass::upto32k);
  EXPECT_EQ(n8192.threads, 256);

  const OnchipPlan odd = plan_onchip(300001, kFp32);
  EXPECT_EQ(odd.cluster, 8);
  EXPECT_EQ(odd.slice, 37504);

  const OnchipPlan bf16_long = plan_onchip(262144, kHalf);  // 512 KB rows: 8 x 64 KB, two CTAs per SM
  EXPECT_EQ(bf16_long.cluster, 8);
  EXPECT_EQ(bf16_long.slice, 32768);
  EXPECT_EQ(bf16_long.kind, SliceClass::upto64k);

  const OnchipPlan bf16_kb = plan_onchip(393216, kHalf);
  EXPECT_EQ(bf16_kb.cluster, 8);
  EXPECT_EQ(bf16_kb.slice, 49152);
  EXPECT_EQ(bf16_kb.kind, SliceClass::upto96k);
  EXPECT_TRUE(plan_onchip(786432, kHalf).fits);
  EXPECT_FALSE(plan_onchip(786433, kHalf).fits);
}

void expect_valid(const DispatchPlan& plan, std::int64_t n, int bytes) {
  SCOPED_TRACE("n=" + std::to_string(n) + " bytes=" + std::to_string(bytes) + " vec=" + std::to_string(plan.vec));
  EXPECT_EQ(plan.registers(), n * bytes <= kRegisterRowBytes || takes_held_block(n, bytes, plan.vec) ||
                                  takes_held_split(n, bytes, plan.vec));
  if (!plan.registers()) return;
  if (plan.path == DispatchPath::held_split) {
    EXPECT_EQ(bytes, 2);
    EXPECT_EQ(plan.vec * bytes, 16) << "cp.async copies 16-byte packs";
    EXPECT_GT(n * bytes, kHeldRowBytes) << "rows a held block holds stay in registers";
    EXPECT_LE(n * bytes, kHeldSplitRowBytes);
    EXPECT_EQ(plan.packs_per_thread * plan.vec, kHeldValuesPerThread + kHeldSplitSlotPacks * plan.vec);
    EXPECT_EQ(plan.lanes % 32, 0);
    EXPECT_LE(plan.lanes, kMaxHeldLanes) << "held_split_rows' launch bound";
    EXPECT_GE(std::int64_t(plan.lanes) * plan.packs_per_thread, plan.packs) << "the row fits its threads";
    EXPECT_LT(std::int64_t(plan.lanes - 32) * plan.packs_per_thread, plan.packs) << "no warp without a pack";
    EXPECT_LE(plan.held_split_smem_bytes(), kMaxHeldLanes * kHeldSplitSlotPacks * 16);
    return;
  }
  if (plan.path == DispatchPath::held_block) {
    EXPECT_EQ(bytes, 2);
    EXPECT_EQ(plan.vec * bytes, 16) << "held rows are whole 16-byte packs";
    EXPECT_GT(n * bytes, kRegisterRowBytes) << "rows that fit the fp32 budget keep it";
    EXPECT_LE(n * bytes, kHeldRowBytes);
    EXPECT_EQ(plan.packs_per_thread * plan.vec, kHeldValuesPerThread);
    EXPECT_EQ(plan.lanes % 32, 0);
    EXPECT_LE(plan.lanes, kMaxHeldLanes) << "held_rows' launch bound";
    EXPECT_GE(std::int64_t(plan.lanes) * plan.packs_per_thread, plan.packs) << "the row fits its threads";
    EXPECT_LT(std::int64_t(plan.lanes - 32) * plan.packs_per_thread, plan.packs) << "no warp without a pack";
    return;
  }
  const int max_packs = max_floats_per_thread(plan.vec, bytes) / plan.vec;
  EXPECT_EQ(plan.packs_per_thread & (plan.packs_per_thread - 1), 0) << "instances exist for powers of two";
  EXPECT_GE(plan.packs_per_thread, 1);
  EXPECT_LE(plan.packs_per_thread, max_packs);
  EXPECT_GE(std::int64_t(plan.lanes) * plan.packs_per_thread * plan.vec, n) << "the row fits its threads";
  if (plan.path == DispatchPath::lane_groups) {
    EXPECT_LE(plan.lanes, 32);
    EXPECT_EQ(plan.lanes & (plan.lanes - 1), 0) << "lane groups are powers of two";
    EXPECT_EQ(plan.lanes * plan.rows_per_block, kLaneGroupThreads);
  } else {
    EXPECT_GT(plan.lanes, 32);
    EXPECT_EQ(plan.lanes % 32, 0);
    EXPECT_LE(plan.lanes, kMaxLanes);
    EXPECT_EQ(plan.rows_per_block, 1);
    EXPECT_EQ(plan.packs_per_thread, max_packs) << "6_dispatch.cu builds a block per row only at the most packs";
  }
}

TEST(SoftmaxDispatchPlan, EveryLengthIsCovered) {
  for (int bytes : {kFp32, kHalf})
    for (std::int64_t n = 1; n <= 70000; n += (n < 33000 ? 1 : 7))
      for (int vec = 16 / bytes; vec >= 1; vec /= 2)
        if (n % vec == 0) expect_valid(plan_dispatch(n, bytes, vec), n, bytes);
}

TEST(SoftmaxDispatchPlan, KnownShapes) {
  const auto plan = [](std::int64_t n, int bytes) { return plan_dispatch(n, bytes, row_pack_width(n, bytes, 0, 0)); };
  const DispatchPlan fp32_256 = plan(256, kFp32);  // several rows per warp
  EXPECT_EQ(fp32_256.path, DispatchPath::lane_groups);
  EXPECT_EQ(fp32_256.lanes, 8);
  EXPECT_EQ(fp32_256.rows_per_block, 16);
  EXPECT_EQ(fp32_256.packs_per_thread, 8);

  const DispatchPlan fp32_1024 = plan(1024, kFp32);  // a warp per row
  EXPECT_EQ(fp32_1024.path, DispatchPath::lane_groups);
  EXPECT_EQ(fp32_1024.lanes, 32);

  const DispatchPlan fp32_2048 = plan(2048, kFp32);
  EXPECT_EQ(fp32_2048.path, DispatchPath::block_row);
  EXPECT_EQ(fp32_2048.lanes, 64);

  const DispatchPlan fp32_8192 = plan(8192, kFp32);
  EXPECT_EQ(fp32_8192.path, DispatchPath::block_row);
  EXPECT_EQ(fp32_8192.lanes, 256);
  EXPECT_EQ(plan(8196, kFp32).path, DispatchPath::onchip);

  const DispatchPlan bf16_1024 = plan(1024, kHalf);
  EXPECT_EQ(bf16_1024.path, DispatchPath::lane_groups);
  EXPECT_EQ(bf16_1024.lanes, 32);
  EXPECT_EQ(bf16_1024.packs_per_thread, 4);

  const DispatchPlan bf16_16384 = plan(16384, kHalf);
  EXPECT_EQ(bf16_16384.path, DispatchPath::block_row);
  EXPECT_EQ(bf16_16384.lanes, 512);
  EXPECT_EQ(plan(16385, kHalf).path, DispatchPath::onchip) << "single values: not held";
  const DispatchPlan bf16_16392 = plan(16392, kHalf);  // just over 32 KB: held, 8 packs a thread
  EXPECT_EQ(bf16_16392.path, DispatchPath::held_block);
  EXPECT_EQ(bf16_16392.lanes, 288);
  EXPECT_EQ(bf16_16392.packs_per_thread, 8);
  const DispatchPlan bf16_32768 = plan(32768, kHalf);  // 64 KB: the most a block holds
  EXPECT_EQ(bf16_32768.path, DispatchPath::held_block);
  EXPECT_EQ(bf16_32768.lanes, kMaxHeldLanes);
  const DispatchPlan bf16_32776 = plan(32776, kHalf);  // 64 KB and a pack: the held split
  EXPECT_EQ(bf16_32776.path, DispatchPath::held_split);
  EXPECT_EQ(bf16_32776.lanes, 288);
  EXPECT_EQ(bf16_32776.packs_per_thread, 16);
  EXPECT_EQ(bf16_32776.held_split_smem_bytes(), 288 * 8 * 16);
  const DispatchPlan bf16_65536 = plan(65536, kHalf);  // 128 KB: the most the held split holds
  EXPECT_EQ(bf16_65536.path, DispatchPath::held_split);
  EXPECT_EQ(bf16_65536.lanes, kMaxHeldLanes);
  EXPECT_EQ(plan(65544, kHalf).path, DispatchPath::onchip);
  EXPECT_EQ(plan_dispatch(32768, kHalf, 4).path, DispatchPath::onchip) << "8-byte packs: not held";
  EXPECT_EQ(plan_dispatch(40000, kHalf, 4).path, DispatchPath::onchip) << "8-byte packs: no held split";
  EXPECT_EQ(plan(262144, kHalf).path, DispatchPath::onchip);

  const DispatchPlan odd = plan(4097, kFp32);  // single elements: 16 per thread
  EXPECT_EQ(odd.vec, 1);
  EXPECT_EQ(odd.path, DispatchPath::block_row);
  EXPECT_EQ(odd.lanes, 288);
  EXPECT_EQ(odd.packs_per_thread, 16);

  const DispatchPlan tiny = plan(3, kHalf);
  EXPECT_EQ(tiny.lanes, 1);
  EXPECT_EQ(tiny.rows_per_block, kLaneGroupThreads);
  EXPECT_EQ(tiny.packs_per_thread, 4);
}

}  // namespace
}  // namespace nb::softmax
