#pragma once
// The float64 references against long double loops: the same NaN and Inf places, and finite
// values within 1e-12 of their scale plus a floor (the two differ in the last bits where terms
// cancel). One helper for the row ops' reference tests.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace nb::test {

namespace detail {
template <class Scale>
void expect_matches_loop(const std::vector<double>& got, const std::vector<long double>& want, Scale scale,
                         long double floor, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  std::int64_t bad = 0, first_bad = -1;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const long double g = got[i], e = want[i];
    const bool ok = std::isnan(e)   ? std::isnan(g)
                    : std::isinf(e) ? g == e
                                    : std::fabs(g - e) <= 1e-12L * scale(i) + floor;
    if (!ok && bad++ == 0) first_bad = static_cast<std::int64_t>(i);
  }
  EXPECT_EQ(bad, 0) << what << ": first mismatch at " << first_bad << ": " << got[std::size_t(first_bad)]
                    << " vs " << static_cast<double>(want[std::size_t(first_bad)]);
}
}  // namespace detail

// Relative to the expected value itself.
inline void expect_matches_loop(const std::vector<double>& got, const std::vector<long double>& want,
                                long double floor, const std::string& what) {
  detail::expect_matches_loop(got, want, [&](std::size_t i) { return std::fabs(want[i]); }, floor, what);
}

// Relative to scale[i], the size of the terms element i is made of.
inline void expect_matches_loop(const std::vector<double>& got, const std::vector<long double>& want,
                                const std::vector<long double>& scale, long double floor, const std::string& what) {
  ASSERT_EQ(scale.size(), want.size()) << what;
  detail::expect_matches_loop(got, want, [&](std::size_t i) { return scale[i]; }, floor, what);
}

}  // namespace nb::test
