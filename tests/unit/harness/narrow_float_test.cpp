// The host conversions to bf16 and fp16 storage (harness/narrow_float.*) must round exactly as the
// device does (round to nearest, ties to even), keep NaN and Inf, overflow to Inf, keep
// subnormals, and decode the poison pattern to the fp32 poison so unwritten elements are counted.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "harness/narrow_float.hpp"
#include "harness/validation/compare.hpp"

namespace nb {
namespace {

const float kInf = std::numeric_limits<float>::infinity();

float r(float v, DType t) { return round_to_storage(v, t); }

TEST(NarrowFloat, Bf16RoundsToNearestTiesToEven) {
  // bf16 keeps 8 significant bits: the spacing above 1 is 2^-7.
  EXPECT_EQ(r(1.0f + 0x1p-7f, DType::bf16), 1.0f + 0x1p-7f);                 // representable
  EXPECT_EQ(r(1.0f + 0x1p-8f, DType::bf16), 1.0f);                           // tie: to the even 1.0
  EXPECT_EQ(r(1.0f + 3 * 0x1p-8f, DType::bf16), 1.0f + 0x1p-6f);             // tie: to the even 1 + 2^-6
  EXPECT_EQ(r(1.0f + 0x1p-8f + 0x1p-20f, DType::bf16), 1.0f + 0x1p-7f);      // just past the tie: up
  EXPECT_EQ(r(1.0f + 0x1p-8f - 0x1p-20f, DType::bf16), 1.0f);                // just below it: down
  EXPECT_EQ(r(-(1.0f + 3 * 0x1p-8f), DType::bf16), -(1.0f + 0x1p-6f));       // symmetric in sign
  EXPECT_EQ(r(1000.0f + 2.0f, DType::bf16), 1000.0f);  // spacing 4 at 1000: 1002 is a tie, 1000 even
  EXPECT_EQ(r(1000.0f + 2.5f, DType::bf16), 1004.0f);
}

TEST(NarrowFloat, Fp16RoundsToNearestTiesToEven) {
  // fp16 keeps 11 significant bits: the spacing above 1 is 2^-10.
  EXPECT_EQ(r(1.0f + 0x1p-10f, DType::f16), 1.0f + 0x1p-10f);
  EXPECT_EQ(r(1.0f + 0x1p-11f, DType::f16), 1.0f);
  EXPECT_EQ(r(1.0f + 3 * 0x1p-11f, DType::f16), 1.0f + 0x1p-9f);
  EXPECT_EQ(r(1.0f + 0x1p-11f + 0x1p-22f, DType::f16), 1.0f + 0x1p-10f);
  EXPECT_EQ(r(-(1.0f + 3 * 0x1p-11f), DType::f16), -(1.0f + 0x1p-9f));
  EXPECT_EQ(r(1000.25f, DType::f16), 1000.0f);  // spacing 0.5 at 1000: a tie, 1000 even
  EXPECT_EQ(r(1000.75f, DType::f16), 1001.0f);  // a tie between 1000.5 (odd) and 1001 (even)
}

TEST(NarrowFloat, NanAndInfinitiesSurvive) {
  for (DType t : {DType::bf16, DType::f16}) {
    EXPECT_TRUE(std::isnan(r(std::numeric_limits<float>::quiet_NaN(), t)));
    EXPECT_EQ(r(kInf, t), kInf);
    EXPECT_EQ(r(-kInf, t), -kInf);
    EXPECT_EQ(r(0.0f, t), 0.0f);
    EXPECT_TRUE(std::signbit(r(-0.0f, t)));
  }
}

TEST(NarrowFloat, Fp16OverflowsToInfinityAbove65504) {
  EXPECT_EQ(r(65504.0f, DType::f16), 65504.0f);  // the largest fp16
  EXPECT_EQ(r(65519.0f, DType::f16), 65504.0f);  // below the midpoint to 2^16: rounds down
  EXPECT_EQ(r(65520.0f, DType::f16), kInf);      // the midpoint: ties to the even 2^16, which overflows
  EXPECT_EQ(r(1e5f, DType::f16), kInf);
  EXPECT_EQ(r(-1e5f, DType::f16), -kInf);
  // bf16 shares fp32's exponent: 1e38 stays finite, FLT_MAX rounds past the largest bf16.
  EXPECT_TRUE(std::isfinite(r(1e38f, DType::bf16)));
  EXPECT_EQ(r(FLT_MAX, DType::bf16), kInf);
}

TEST(NarrowFloat, SubnormalsAreKeptAndRoundedToTheirSpacing) {
  // fp16: subnormals are multiples of 2^-24 below the smallest normal 2^-14 (6.1e-5).
  EXPECT_EQ(r(0x1p-24f, DType::f16), 0x1p-24f);
  EXPECT_EQ(r(0x1p-25f, DType::f16), 0.0f);                // a tie between 0 and 2^-24: to 0
  EXPECT_EQ(r(1.5f * 0x1p-25f, DType::f16), 0x1p-24f);
  EXPECT_EQ(r(3 * 0x1p-25f, DType::f16), 0x1p-23f);        // a tie between 1 and 2 (x 2^-24): to 2
  EXPECT_EQ(r(1000 * 0x1p-24f + 0.25f * 0x1p-24f, DType::f16), 1000 * 0x1p-24f);
  EXPECT_EQ(r(6.0e-5f, DType::f16), std::nearbyint(6.0e-5f / 0x1p-24f) * 0x1p-24f);
  // bf16: subnormals are multiples of 2^-133 (fp32 denormals on the host).
  EXPECT_EQ(r(0x1p-133f, DType::bf16), 0x1p-133f);
  EXPECT_EQ(r(0x1p-134f, DType::bf16), 0.0f);
  EXPECT_EQ(r(3 * 0x1p-134f, DType::bf16), 0x1p-132f);
}

TEST(NarrowFloat, EveryPatternDecodesAndEncodesBack) {
  for (DType t : {DType::bf16, DType::f16}) {
    std::vector<std::uint16_t> bits(1 << 16), again(1 << 16);
    for (int i = 0; i < (1 << 16); ++i) bits[i] = static_cast<std::uint16_t>(i);
    std::vector<float> values(1 << 16);
    decode_narrow(bits.data(), values.data(), 1 << 16, t);
    encode_narrow(values.data(), again.data(), 1 << 16, t);
    int checked = 0;
    for (int i = 0; i < (1 << 16); ++i) {
      if (std::isnan(values[i])) continue;  // NaN payloads are not kept (CUDA returns one canonical NaN)
      ASSERT_EQ(again[i], bits[i]) << dtype_name(t) << " pattern " << i;
      ASSERT_EQ(round_to_storage(values[i], t), values[i]) << "decoded values are representable";
      ++checked;
    }
    EXPECT_GT(checked, 60000);
  }
}

TEST(NarrowFloat, PoisonDecodesToTheFp32PoisonAndNothingEncodesToIt) {
  for (DType t : {DType::bf16, DType::f16}) {
    for (int payload : {0, 1}) {
      const std::uint16_t poison = stored::narrow_poison_bits(payload);
      float decoded = 0;
      decode_narrow(&poison, &decoded, 1, t);
      EXPECT_TRUE(is_poison(decoded)) << dtype_name(t) << " payload " << payload;
    }
    float alt_fp32;
    const std::uint32_t alt_bits = stored::kPoisonBitsAlt;
    std::memcpy(&alt_fp32, &alt_bits, sizeof alt_fp32);
    EXPECT_TRUE(is_poison(alt_fp32)) << "the second fp32 payload reads as unwritten";
    const float nan = std::numeric_limits<float>::quiet_NaN(), fp32_poison = poison_value();
    for (float v : {nan, -nan, fp32_poison, alt_fp32}) {
      std::uint16_t encoded = 0;
      encode_narrow(&v, &encoded, 1, t);
      EXPECT_FALSE(stored::is_narrow_poison_bits(encoded)) << dtype_name(t) << ": a computed NaN must not read as unwritten";
    }
  }
  EXPECT_NE(stored::poison_payload(0), stored::poison_payload(1)) << "trials alternate the payloads";
  EXPECT_FALSE(is_poison(std::numeric_limits<float>::quiet_NaN()));
}

TEST(NarrowFloat, Fp32StorageIsLeftAlone) {
  std::vector<float> v = {1.0f + 0x1p-20f, 1e-40f, 65520.0f};
  const std::vector<float> before = v;
  round_to_storage(v, DType::f32);
  EXPECT_EQ(v, before);
  round_to_storage(v, DType::f16);
  EXPECT_EQ(v[0], 1.0f);
  EXPECT_EQ(v[1], 0.0f);
  EXPECT_EQ(v[2], kInf);
}

}  // namespace
}  // namespace nb
