#pragma once
// GEMM operands rounded as the kernels under test would round them, for the tolerance tests'
// emulations (the rest of the computation exact or fp32): tf32 to nearest (cvt.rna.tf32.f32, what
// our mma.sync kernels do), tf32 toward zero (a tensor core reading fp32 operands drops their low
// 13 bits), and bf16 to nearest even (a bf16 kernel passed off as tf32).
#include <cstdint>
#include <cstring>
#include <string>

#include "harness/narrow_float.hpp"
#include "harness/op_spec.hpp"

namespace nb::test {

inline float with_bits(float v, std::uint32_t (*change)(std::uint32_t)) {
  std::uint32_t u;
  std::memcpy(&u, &v, 4);
  u = change(u);
  std::memcpy(&v, &u, 4);
  return v;
}

// Round to nearest, ties away, to 10 explicit mantissa bits.
inline float to_tf32(float v) {
  return with_bits(v, [](std::uint32_t u) { return (u + 0x1000u) & 0xffffe000u; });
}

// Toward zero, to 10 explicit mantissa bits.
inline float truncated_to_tf32(float v) {
  return with_bits(v, [](std::uint32_t u) { return u & 0xffffe000u; });
}

inline float to_bf16(float v) { return round_to_storage(v, DType::bf16); }

// The tolerance tests' instance of a forward pipeline: M = N = 64 and K as given (G = 4 for
// GroupNorm), small enough for float64 emulation, K as long as the suites' GEMMs.
inline Params square_pipeline_params(const std::string& op, double k) {
  Params params{{"m", 64}, {"n", 64}, {"k", k}};
  if (op == "gemm_gn_min_bias") params.set("g", 4);
  return params;
}

// Toward zero, to bf16's 7 explicit mantissa bits.
inline float truncated_to_bf16(float v) {
  return with_bits(v, [](std::uint32_t u) { return u & 0xffff0000u; });
}

}  // namespace nb::test
