#include "kernels/rows/row_plan.hpp"

#include <algorithm>
#include <limits>

#include "kernels/primitives/host_math.hpp"

namespace nb::rows {
namespace {

// The fewest blocks (a power of two <= kMaxParts) whose parts are at most `limit` packs each.
int parts_for(std::int64_t packs, std::int64_t limit) {
  int parts = 1;
  while (parts < kMaxParts && ceil_div(packs, parts) > limit) parts *= 2;
  return parts;
}

// Slices of at most 32 KB, or up to 64 KB at 8 blocks; false when even those do not hold the row.
bool plan_staged(RowPlan& plan) {
  const std::int64_t pack_bytes = plan.pack_bytes();
  plan.parts = parts_for(plan.packs, kStagedSliceBytes / pack_bytes);
  plan.packs_per_part = ceil_div(plan.packs, plan.parts);
  if (plan.packs_per_part * pack_bytes > kMaxStagedSliceBytes) return false;
  const std::int64_t lanes = ceil_div(ceil_div(plan.packs_per_part, kStagedPacksPerThread), 32) * 32;
  plan.lanes = static_cast<int>(std::min<std::int64_t>(lanes, kMaxLanes));
  plan.packs_per_thread = static_cast<int>(ceil_div(plan.packs_per_part, plan.lanes));
  plan.layout = RowLayout::staged;
  return true;
}

// Registers: as many parts as keep a block at <= block_elements, threads enough for the
// budget, short rows in lane groups; streamed when a cluster's registers cannot hold the row.
void plan_registers(RowPlan& plan) {
  const int max_packs_per_thread = max_elements_per_thread(plan.vec) / plan.vec;
  plan.parts = parts_for(plan.packs, block_elements(plan.vec) / plan.vec);
  plan.packs_per_part = ceil_div(plan.packs, plan.parts);

  const std::int64_t lanes_needed = ceil_div(plan.packs_per_part, max_packs_per_thread);
  if (lanes_needed <= 32) {  // short rows: a power-of-two lane group, several rows per block
    plan.lanes = pow2_at_least(lanes_needed);
    plan.rows_per_block = kLaneGroupThreads / plan.lanes;
    plan.layout = RowLayout::lane_groups;
  } else if (lanes_needed <= kMaxLanes) {
    plan.lanes = static_cast<int>(ceil_div(lanes_needed, 32) * 32);
    plan.layout = plan.parts > 1 ? RowLayout::cluster : RowLayout::block;
  } else {  // too long for the registers of a cluster: stream each part twice
    plan.lanes = kMaxLanes;
    plan.layout = RowLayout::streamed;
    return;
  }
  plan.packs_per_thread = pow2_at_least(ceil_div(plan.packs_per_part, plan.lanes));
}

// Past block_elements, 2-byte packs held as stored: one block of up to 512 lanes, 64 values each.
void plan_held_block(RowPlan& plan) {
  const int packs_per_thread = kMaxHeldPairedElementsPerThread / plan.vec;
  plan.packs_per_part = plan.packs;
  plan.lanes = static_cast<int>(ceil_div(ceil_div(plan.packs, packs_per_thread), 32) * 32);
  plan.packs_per_thread = packs_per_thread;
  plan.layout = RowLayout::block;
}

// 2-byte packs past the held block and up to held_split_elements: one block of up to 512 lanes,
// kHeldSplitPacks packs a thread in registers and as many in its slots.
void plan_held_split(RowPlan& plan) {
  plan.packs_per_part = plan.packs;
  plan.packs_per_thread = 2 * kHeldSplitPacks;
  plan.lanes = static_cast<int>(ceil_div(ceil_div(plan.packs, plan.packs_per_thread), 32) * 32);
  plan.layout = RowLayout::held_split;
}

}  // namespace

std::int64_t RowPlan::capacity() const {
  if (streamed()) return std::numeric_limits<std::int64_t>::max();
  return static_cast<std::int64_t>(parts) * lanes * packs_per_thread * vec;
}

std::int64_t RowPlan::staged_smem_bytes() const { return kStagedSlices * packs_per_part * pack_bytes(); }

std::int64_t RowPlan::held_split_smem_bytes() const {
  return std::int64_t{lanes} * kHeldSplitPacks * pack_bytes();
}

RowPlan plan_register_row(std::int64_t n, int element_bytes, bool packs16, RowLayouts allowed) {
  RowPlan plan;
  plan.element_bytes = element_bytes;
  plan.vec = packs16 ? kPackBytes / element_bytes : 1;
  plan.packs = ceil_div(n, plan.vec);
  if (n > block_elements(plan.vec) && n <= held_block_elements(element_bytes, plan.vec)) {
    plan_held_block(plan);
    return plan;
  }
  if (allowed.held_split && n > held_block_elements(element_bytes, plan.vec) &&
      n <= held_split_elements(element_bytes, plan.vec)) {
    plan_held_split(plan);
    return plan;
  }
  if (packs16 && allowed.staged && n > block_elements(plan.vec)) {
    RowPlan staged = plan;
    if (plan_staged(staged)) return staged;
  }
  plan_registers(plan);
  return plan;
}

}  // namespace nb::rows
