// The element rule of the timed-output check (harness/device/output_agreement.hpp), on the host:
// either disturbance payload reads as unwritten, rounding agrees, a wrong value differs, and
// NaN and infinities agree only with themselves.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>

#include "harness/device/output_agreement.hpp"

namespace nb {
namespace {

ElementAgreement agree(float y, float s, DType t = DType::f32, double floor = 0) {
  return element_agreement(&y, &s, 0, t, timed_output_relative_bound(t), floor);
}

float from_bits(std::uint32_t bits) {
  float v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

TEST(OutputAgreement, ClassifiesEachElement) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(agree(from_bits(stored::kPoisonBits), 1.0f), ElementAgreement::disturbed);
  EXPECT_EQ(agree(from_bits(stored::kPoisonBitsAlt), 1.0f), ElementAgreement::disturbed);
  EXPECT_EQ(agree(1.0f + 1e-6f, 1.0f), ElementAgreement::agrees) << "atomics reorder sums";
  EXPECT_EQ(agree(1.01f, 1.0f), ElementAgreement::differs);
  EXPECT_EQ(agree(nan, nan), ElementAgreement::agrees);
  EXPECT_EQ(agree(nan, 1.0f), ElementAgreement::differs);
  EXPECT_EQ(agree(1.0f, nan), ElementAgreement::differs);
  EXPECT_EQ(agree(inf, inf), ElementAgreement::agrees);
  EXPECT_EQ(agree(-inf, inf), ElementAgreement::differs);
  EXPECT_EQ(agree(2e-7f, 1e-7f, DType::f32, 1e-3), ElementAgreement::agrees) << "near zero, the floor decides";
  EXPECT_EQ(agree(2e-7f, 1e-7f), ElementAgreement::differs);
}

TEST(OutputAgreement, NarrowOutputsGetAFewOfTheirUlps) {
  const std::uint16_t one = stored::narrow_bits(1.0f, DType::bf16), next = static_cast<std::uint16_t>(one + 1),
                      far = stored::narrow_bits(1.1f, DType::bf16), poison = stored::kNarrowPoisonBitsAlt;
  const double bound = timed_output_relative_bound(DType::bf16);
  EXPECT_EQ(element_agreement(&next, &one, 0, DType::bf16, bound, 0), ElementAgreement::agrees);
  EXPECT_EQ(element_agreement(&far, &one, 0, DType::bf16, bound, 0), ElementAgreement::differs);
  EXPECT_EQ(element_agreement(&poison, &one, 0, DType::bf16, bound, 0), ElementAgreement::disturbed);
}

}  // namespace
}  // namespace nb
