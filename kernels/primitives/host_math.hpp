#pragma once
// Integer helpers of the host-side launch plans: a rounded-up quotient and the power of two that
// covers a count (lane groups, packs per thread).
#include <cstdint>

namespace nb {

constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

constexpr int pow2_at_least(std::int64_t v) {
  int p = 1;
  while (p < v) p *= 2;
  return p;
}

}  // namespace nb
