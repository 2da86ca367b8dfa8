#include "kernels/rows/rows_bwd/fused_plan.hpp"

#include <algorithm>
#include <sstream>

#include "kernels/primitives/host_math.hpp"

namespace nb::rows_bwd {
namespace {

// Rows too long for registers: 1024 threads per part, as many parts as keep the part's column
// sums within kStreamSharedBytes.
void plan_streamed(FusedPlan& plan, int column_sums) {
  const auto bytes = [&] { return std::size_t(plan.packs_per_part * plan.vec) * sizeof(float) * std::size_t(column_sums); };
  while (plan.parts < kMaxStreamParts && bytes() > kStreamSharedBytes) {
    plan.parts *= 2;
    plan.packs_per_part = ceil_div(plan.packs, plan.parts);
  }
  plan.lanes = kStreamLanes;
  plan.rows_per_block = 1;
  plan.packs_per_thread = 0;
  plan.shared_bytes = bytes();
  if (plan.shared_bytes > kStreamSharedBytes) {
    std::ostringstream why;
    why << "rows of " << plan.packs * plan.vec << " elements: the " << column_sums
        << " column sum(s) per element of a 1/" << kMaxStreamParts << " share take " << plan.shared_bytes
        << " bytes of shared memory, more than " << kStreamSharedBytes;
    plan.unsupported = why.str();
  }
}

}  // namespace

FusedPlan plan_fused(std::int64_t n, int vec, int column_sums) {
  FusedPlan plan;
  plan.vec = vec;
  plan.packs = ceil_div(n, vec);
  const std::int64_t packs_per_block = kElementsPerBlock / vec;
  const int max_packs_per_thread = kMaxElementsPerThread / vec;
  while (plan.parts < kPortableClusterSize && ceil_div(plan.packs, plan.parts) > packs_per_block) plan.parts *= 2;
  plan.packs_per_part = ceil_div(plan.packs, plan.parts);
  std::int64_t lanes_needed = ceil_div(plan.packs_per_part, max_packs_per_thread);
  if (lanes_needed > kMaxLanes && ceil_div(plan.packs, kMaxRegisterParts) <= std::int64_t(kMaxLanes) * max_packs_per_thread) {
    plan.parts = kMaxRegisterParts;  // a non-portable cluster keeps the row in registers
    plan.packs_per_part = ceil_div(plan.packs, plan.parts);
    lanes_needed = ceil_div(plan.packs_per_part, max_packs_per_thread);
  }

  if (lanes_needed <= 32) {
    plan.lanes = pow2_at_least(lanes_needed);
  } else if (lanes_needed <= kMaxLanes) {
    plan.lanes = int(ceil_div(lanes_needed, 32) * 32);
  } else {
    plan_streamed(plan, column_sums);
    return plan;
  }
  plan.rows_per_block = std::max(1, kBlockThreads / plan.lanes);  // several slots only below kBlockThreads lanes
  plan.packs_per_thread = pow2_at_least(ceil_div(plan.packs_per_part, plan.lanes));
  if (shared_column_sums(plan.packs_per_thread, plan.vec))
    plan.shared_bytes = std::size_t(plan.threads()) * std::size_t(plan.packs_per_thread * plan.vec) * sizeof(float) *
                        std::size_t(column_sums);
  return plan;
}

FusedPlan plan_fused_tma(std::int64_t n, int vec, int column_sums) {
  FusedPlan plan;
  plan.vec = vec;
  plan.packs = ceil_div(n, vec);
  if (vec == 1 || n % vec != 0) {
    plan.unsupported = "the TMA-fed rows copy whole 16-byte packs: N a multiple of 16 bytes' elements";
    return plan;
  }
  const auto part_over = [&](int packs_per_thread) {
    const std::int64_t per_part = std::int64_t(kTmaMaxConsumers) * packs_per_thread;
    plan.parts = 1;
    while (plan.parts < kMaxRegisterParts && ceil_div(plan.packs, plan.parts) > per_part) plan.parts *= 2;
    plan.packs_per_part = ceil_div(plan.packs, plan.parts);
    plan.packs_per_thread = packs_per_thread;
    return plan.packs_per_part <= per_part;
  };
  // Four packs a thread where two do not reach, and for RMSNorm where two would need the widest cluster.
  bool fits = part_over(kTmaPacksPerThread);
  if (!fits || (column_sums == 1 && plan.parts == kMaxRegisterParts)) fits = part_over(kTmaWidePacksPerThread);
  if (!fits) {
    const std::int64_t per_part = std::int64_t(kTmaMaxConsumers) * kTmaWidePacksPerThread * vec;
    std::ostringstream why;
    why << "rows of " << n << " elements: the TMA-fed rows take at most " << per_part * kMaxRegisterParts << " ("
        << kMaxRegisterParts << " parts of " << per_part << ")";
    plan.unsupported = why.str();
    return plan;
  }
  plan.lanes = int(ceil_div(ceil_div(plan.packs_per_part, plan.packs_per_thread), 32) * 32);
  plan.rows_per_block = 1;
  const bool wide = plan.packs_per_thread == kTmaWidePacksPerThread;
  plan.one_ahead = (plan.parts == kMaxRegisterParts && vec == 4) || wide;  // fp32 over 16 parts, or four packs
  plan.stages = wide ? kTmaWideStages : plan.one_ahead ? kTmaAheadStages : kTmaStages;
  plan.stages_aligned_at_run_time = column_sums == 1 && !plan.one_ahead && plan.parts <= 2 &&
                                    plan.packs_per_part >= 32 * kTmaPacksPerThread;
  const bool w_shared = tma_w_in_shared(column_sums, plan.packs_per_thread);
  plan.shared_bytes = tma_stages_bytes(plan.stages, plan.packs_per_part) +
                      (w_shared ? tma_shared_w_bytes(plan.packs_per_part) : 0) +
                      (plan.stages_aligned_at_run_time ? kTmaStageAlign : 0);
  return plan;
}

std::int64_t max_band_count(std::int64_t m, const FusedPlan& plan) {
  return std::clamp<std::int64_t>(ceil_div(m, plan.rows_per_block * kMinBandRounds), 1, kMaxBands);
}

std::int64_t band_count(std::int64_t m, const FusedPlan& plan, std::int64_t resident) {
  return std::clamp<std::int64_t>(std::min(resident, max_band_count(m, plan)), 1, kMaxBands);
}

}  // namespace nb::rows_bwd
