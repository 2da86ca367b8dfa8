#include "kernels/rows/tma_rows/plan.hpp"

#include <algorithm>
#include <sstream>

namespace nb::rows::tma {
namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

}  // namespace

Plan plan_tma_rows(std::int64_t n, int element_bytes) {
  Plan plan;
  plan.vec = 16 / element_bytes;
  plan.packs = ceil_div(n, plan.vec);
  if (n % plan.vec != 0) {
    std::ostringstream why;
    why << "the TMA-fed rows copy whole 16-byte packs: N a multiple of " << plan.vec;
    plan.unsupported = why.str();
    return plan;
  }
  const std::int64_t per_part = std::int64_t(kMaxConsumers) * kPacksPerThread;
  while (plan.parts < kMaxParts && ceil_div(plan.packs, plan.parts) > per_part) plan.parts *= 2;
  plan.packs_per_part = ceil_div(plan.packs, plan.parts);
  if (plan.packs_per_part > per_part) {
    std::ostringstream why;
    why << "rows of " << n << " elements: the TMA-fed rows take at most " << per_part * kMaxParts * plan.vec << " ("
        << kMaxParts << " parts of " << per_part * plan.vec << ")";
    plan.unsupported = why.str();
    return plan;
  }
  plan.consumers = int(ceil_div(ceil_div(plan.packs_per_part, kPacksPerThread), 32) * 32);
  plan.shared_bytes = std::size_t(kStages) * std::size_t(plan.part_bytes());
  return plan;
}

std::int64_t band_count(std::int64_t m, std::int64_t resident) {
  return std::max<std::int64_t>(1, std::min(resident, ceil_div(m, kMinBandRounds)));
}

}  // namespace nb::rows::tma
