#pragma once
// Host conversions between the float values the harness computes with and the 2-byte storage of
// bf16 and fp16 tensors: round to nearest even, exactly as the device's __float2bfloat16_rn and
// __float2half_rn do, so a host copy holds precisely what the device tensor holds.
#include <cstdint>
#include <vector>

#include "harness/dtype.hpp"
#include "harness/stored_value.hpp"

namespace nb {

// The 2-byte poison of narrow tensors: a NaN in both bf16 and fp16 that arithmetic never makes
// (the high half of the fp32 poison pattern, 0x7fa5a5a5).
inline constexpr std::uint16_t kNarrowPoisonBits = stored::kNarrowPoisonBits;

// v rounded to the storage type and back (NaN stays NaN, overflow becomes the signed infinity).
float round_to_storage(float v, DType storage);
// Every element, in place; a no-op for fp32 storage.
void round_to_storage(std::vector<float>& values, DType storage);

// float -> 2-byte pattern (round to nearest even) and back; `storage` is bf16 or fp16.
void encode_narrow(const float* in, std::uint16_t* out, std::int64_t n, DType storage);
// Either poison pattern decodes to the fp32 poison (kPoisonBits), so the comparison counts it as
// unwritten whatever the storage.
void decode_narrow(const std::uint16_t* in, float* out, std::int64_t n, DType storage);

}  // namespace nb
