#pragma once
// What both RMSNorm layouts declare the same way: why Welford does not apply, and why `wide`
// is a stress distribution for a plain fp32 sum of squares.
#include <string>

#include "harness/op_spec.hpp"

namespace nb::rms {

inline NotApplicable welford_not_applicable() {
  return {"welford",
          "RMS has no mean to subtract: the sum of squares of the raw values has no cancellation, so one fp32 "
          "pass is already accurate, and Welford's running mean would only add work"};
}

// `what_zeroes` names what the Inf sum of squares turns to 0 ("every y of that position").
inline StressDistribution wide_overflows(const std::string& what_zeroes) {
  return {Distribution::wide, "x^2 overflows fp32 once |x| > ~1.8e19, so a plain fp32 sum of squares turns Inf and " +
                                  what_zeroes + " becomes 0; only a kernel that rescales before squaring passes"};
}

}  // namespace nb::rms
