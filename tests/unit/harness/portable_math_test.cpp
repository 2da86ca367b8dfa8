// The draws' own log, cos(2 pi t) and 10^x (harness/portable_math.hpp) against the C library's:
// within a few units in the last place of double over their whole use, so the distributions are
// what they always were, while the host and the device compute them bit for bit alike.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "harness/element_draw.hpp"
#include "harness/portable_math.hpp"

namespace nb {
namespace {

double relative(double got, double want) { return std::fabs(got - want) / std::max(std::fabs(want), 1e-300); }

constexpr double kDoubleUlp = 0x1.0p-52;

TEST(PortableMath, LogAgreesWithTheLibraryOverTheUnitInterval) {
  double worst = 0;
  for (std::uint64_t i = 0; i < 200000; ++i) {
    const double u = element_draw::unit(element_draw::word(11, 3, i, 1));
    worst = std::max(worst, std::fabs(portable::log(u) - std::log(u)) / std::max(1.0, std::fabs(std::log(u))));
  }
  for (double u : {0x1.0p-53, 1e-300, 0.5, 0.7071067811865476, 1.0 - 0x1.0p-53, 1.0})
    worst = std::max(worst, std::fabs(portable::log(u) - std::log(u)) / std::max(1.0, std::fabs(std::log(u))));
  EXPECT_LT(worst, 4 * kDoubleUlp);
}

TEST(PortableMath, CosOfTurnsAgreesWithTheLibrary) {
  double worst = 0;
  for (std::uint64_t i = 0; i < 200000; ++i) {
    const double t = element_draw::unit(element_draw::word(12, 3, i, 2));
    worst = std::max(worst, std::fabs(portable::cos_turns(t) - std::cos(6.283185307179586 * t)));
  }
  for (double t : {0.0, 0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875, 1.0 - 0x1.0p-53})
    worst = std::max(worst, std::fabs(portable::cos_turns(t) - std::cos(6.283185307179586 * t)));
  EXPECT_LT(worst, 8 * kDoubleUlp);  // absolute: cos(2 pi t) itself rounds 2 pi t
}

TEST(PortableMath, PowersOfTenAgreeWithTheLibrary) {
  double worst = 0;
  for (int k = -20000; k <= 20000; ++k) {
    const double x = k * 1e-3;
    worst = std::max(worst, relative(portable::exp10(x), std::pow(10.0, x)));
  }
  EXPECT_LT(worst, 64 * kDoubleUlp);  // x log2(10) rounds at |x| up to 20
  EXPECT_EQ(portable::exp10(0.0), 1.0);
}

TEST(PortableMath, GaussianDrawsHaveTheirMoments) {
  const int n = 1 << 20;
  double sum = 0, sum2 = 0, sum4 = 0;
  for (int i = 0; i < n; ++i) {
    const double g = element_draw::gaussian(5, 1, std::uint64_t(i));
    sum += g, sum2 += g * g, sum4 += g * g * g * g;
  }
  EXPECT_NEAR(sum / n, 0.0, 0.005);
  EXPECT_NEAR(sum2 / n, 1.0, 0.005);
  EXPECT_NEAR(sum4 / n, 3.0, 0.05);
}

}  // namespace
}  // namespace nb
