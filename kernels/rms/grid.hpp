#pragma once
// Grid sizes for grid-stride loops: every block a problem needs, capped at gridDim.x's limit, so
// a kernel stays correct (just loops more) for any problem the op accepts.
#include <algorithm>

namespace nb::rms {

inline constexpr long long kMaxGridX = 0x7fffffffLL;

inline unsigned grid_blocks(long long wanted, long long cap = kMaxGridX) {
  return static_cast<unsigned>(std::max(1LL, std::min(wanted, cap)));
}

inline long long ceil_div_ll(long long a, long long b) { return (a + b - 1) / b; }

}  // namespace nb::rms
