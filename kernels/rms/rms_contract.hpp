#pragma once
// What both RMSNorm layouts declare the same way: why Welford does not apply, and why `wide`
// is a stress distribution for a plain fp32 sum of squares.
#include <initializer_list>
#include <sstream>
#include <string>
#include <vector>

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

// "" when `elements` (written as `product`, e.g. "M*N") fits the 2^40 the kernels index with.
inline std::string element_limit(double elements, const std::string& product) {
  if (elements <= double(std::int64_t(1) << 40)) return "";
  std::ostringstream msg;
  msg << product << " = " << elements << " elements is more than 2^40: offsets and byte counts would leave the "
      << "range the kernels and references are written for";
  return msg.str();
}

inline std::vector<NamedProblem> all_suites(std::initializer_list<std::vector<NamedProblem>> suites) {
  std::vector<NamedProblem> all;
  for (const auto& suite : suites) all.insert(all.end(), suite.begin(), suite.end());
  return all;
}

}  // namespace nb::rms
