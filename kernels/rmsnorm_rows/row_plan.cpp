#include "kernels/rmsnorm_rows/row_plan.hpp"

#include <limits>

namespace nb::rmsnorm_rows {
namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

int pow2_at_least(std::int64_t v) {
  int p = 1;
  while (p < v) p *= 2;
  return p;
}

}  // namespace

std::int64_t RowPlan::capacity() const {
  if (streamed()) return std::numeric_limits<std::int64_t>::max();
  return static_cast<std::int64_t>(parts) * lanes * packs_per_thread * vec;
}

RowPlan plan_register_row(std::int64_t n, bool packs_of_4) {
  RowPlan plan;
  plan.vec = packs_of_4 ? 4 : 1;
  plan.packs = ceil_div(n, plan.vec);
  const std::int64_t packs_per_block = kFloatsPerBlock / plan.vec;
  const int max_packs_per_thread = max_floats_per_thread(plan.vec) / plan.vec;
  while (plan.parts < kMaxParts && ceil_div(plan.packs, plan.parts) > packs_per_block) plan.parts *= 2;
  plan.packs_per_part = ceil_div(plan.packs, plan.parts);

  const std::int64_t lanes_needed = ceil_div(plan.packs_per_part, max_packs_per_thread);
  if (lanes_needed <= 32) {  // short rows: a power-of-two lane group, several rows per block
    plan.lanes = pow2_at_least(lanes_needed);
    plan.rows_per_block = kLaneGroupThreads / plan.lanes;
  } else if (lanes_needed <= kMaxLanes) {
    plan.lanes = static_cast<int>(ceil_div(lanes_needed, 32) * 32);
  } else {  // too long for the registers of a cluster: stream each part twice
    plan.lanes = kMaxLanes;
    return plan;
  }
  plan.packs_per_thread = pow2_at_least(ceil_div(plan.packs_per_part, plan.lanes));
  return plan;
}

}  // namespace nb::rmsnorm_rows
