#pragma once
// The Hopper GEMM's input precisions: what a stage's 128-byte rows hold, how TMA reads them and
// which wgmma multiplies them. tf32 takes fp32 operands (the tensor cores round them); bf16 takes
// bf16 operands, at twice tf32's peak. Both accumulate in fp32, and both step 32 bytes of K per
// instruction (8 tf32, 16 bf16), so a stage is four instructions either way.
#include <cuda_bf16.h>

#include <cstdint>

#include "kernels/gemm/sm90/tensor_map.hpp"
#include "kernels/gemm/sm90/wgmma_m64n256.cuh"

namespace nb::gemm::sm90 {

struct Tf32Inputs {
  using Element = float;
  static constexpr TmaElement kTma = TmaElement::f32;
  __device__ static void mma(float (&acc)[128], std::uint64_t a, std::uint64_t b) { wgmma_m64n256k8_tf32(acc, a, b); }
};

struct Bf16Inputs {
  using Element = __nv_bfloat16;
  static constexpr TmaElement kTma = TmaElement::bf16;
  __device__ static void mma(float (&acc)[128], std::uint64_t a, std::uint64_t b) { wgmma_m64n256k16_bf16(acc, a, b); }
};

inline constexpr int kBytesPerMma = 32;  // of each operand row: one instruction's K

}  // namespace nb::gemm::sm90
