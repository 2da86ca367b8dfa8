#pragma once
// A tensor element as its storage holds it, read and written as float on the host or the device:
// fp32 (and tf32, stored as fp32) as itself, bf16 and fp16 as 2-byte patterns rounded to nearest
// even (cuda_bf16.h's and cuda_fp16.h's conversions, which the host and the device share).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <cstring>

#include "harness/dtype.hpp"
#include "harness/host_device.hpp"

namespace nb::stored {

// The poison patterns: a NaN arithmetic never makes (fp32), and its high half (bf16 and fp16).
// There are two payloads, alternated between trials and between timed samples, so that a kernel
// whose result depends on what it finds in memory nothing wrote (its outputs, its workspace)
// cannot give the same answer twice; both read as unwritten.
inline constexpr std::uint32_t kPoisonBits = 0x7fa5a5a5u;
inline constexpr std::uint16_t kNarrowPoisonBits = 0x7fa5u;
inline constexpr std::uint32_t kPoisonBitsAlt = 0x7f9a5a5au;
inline constexpr std::uint16_t kNarrowPoisonBitsAlt = 0x7f9au;

// Which of the two payloads (0 or 1) fills memory for trial or sample `k`.
NB_HD inline int poison_payload(std::int64_t k) { return static_cast<int>(k & 1); }
NB_HD inline std::uint32_t poison_bits(int payload) { return payload ? kPoisonBitsAlt : kPoisonBits; }
NB_HD inline std::uint16_t narrow_poison_bits(int payload) { return payload ? kNarrowPoisonBitsAlt : kNarrowPoisonBits; }
NB_HD inline bool is_poison_bits(std::uint32_t bits) { return bits == kPoisonBits || bits == kPoisonBitsAlt; }
NB_HD inline bool is_narrow_poison_bits(std::uint16_t bits) {
  return bits == kNarrowPoisonBits || bits == kNarrowPoisonBitsAlt;
}

NB_HD inline bool narrow(DType t) { return t == DType::bf16 || t == DType::f16; }

NB_HD inline std::uint16_t narrow_bits(float v, DType t) {
  if (t == DType::bf16) return static_cast<__nv_bfloat16_raw>(__float2bfloat16_rn(v)).x;
  return static_cast<__half_raw>(__float2half_rn(v)).x;
}

NB_HD inline float narrow_value(std::uint16_t bits, DType t) {
  if (t == DType::bf16) {
    __nv_bfloat16_raw raw;
    raw.x = bits;
    return __bfloat162float(__nv_bfloat16(raw));
  }
  __half_raw raw;
  raw.x = bits;
  return __half2float(__half(raw));
}

// v as the storage type holds it (NaN stays NaN, overflow becomes the signed infinity).
NB_HD inline float rounded(float v, DType t) { return narrow(t) ? narrow_value(narrow_bits(v, t), t) : v; }

NB_HD inline float load(const void* data, std::int64_t i, DType t) {
  if (narrow(t)) return narrow_value(static_cast<const std::uint16_t*>(data)[i], t);
  return static_cast<const float*>(data)[i];
}

NB_HD inline void store(void* data, std::int64_t i, DType t, float v) {
  if (narrow(t)) static_cast<std::uint16_t*>(data)[i] = narrow_bits(v, t);
  else static_cast<float*>(data)[i] = v;
}

// True when element i still holds either poison pattern (it was not written).
NB_HD inline bool is_poison(const void* data, std::int64_t i, DType t) {
  if (narrow(t)) return is_narrow_poison_bits(static_cast<const std::uint16_t*>(data)[i]);
  return is_poison_bits(static_cast<const std::uint32_t*>(data)[i]);
}

// The largest finite value the storage holds: a float64 reference beyond it is an infinity once stored.
NB_HD inline double largest_finite(DType t) {
  if (t == DType::f16) return 65504.0;
  if (t == DType::bf16) return 3.3895313892515355e38;
  return 3.4028234663852886e38;
}

// A tensor in its storage, as a program reads it: one pointer, one type.
struct Tensor {
  const void* data = nullptr;
  DType type = DType::f32;
  NB_HD float operator[](std::int64_t i) const { return load(data, i, type); }
};

// The same, written.
struct MutableTensor {
  void* data = nullptr;
  DType type = DType::f32;
  NB_HD float operator[](std::int64_t i) const { return load(data, i, type); }
  NB_HD void set(std::int64_t i, float v) const { store(data, i, type, v); }
};

}  // namespace nb::stored

namespace nb {

// The NaN bit pattern written into every output before a validated launch. Arithmetic never
// produces this payload (CUDA's canonical NaN is 0x7fffffff), so an element that still holds it
// was not written. Trials alternate it with stored::kPoisonBitsAlt, which reads as unwritten too.
inline constexpr std::uint32_t kPoisonBits = stored::kPoisonBits;

// Whether a float holds either poison pattern, and the fp32 poison as a float (host code).
inline bool is_poison(float v) {
  std::uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return stored::is_poison_bits(bits);
}
inline float poison_value() {
  float v;
  std::memcpy(&v, &kPoisonBits, sizeof v);
  return v;
}

}  // namespace nb
