#pragma once
// When a pipeline variant runs on our Hopper GEMM (kernels/gemm/sm90/): a tf32 problem (an fp32
// one asks for IEEE fp32 products, which tensor cores do not make) or a bf16 one, whose shape the
// Hopper GEMM does not refuse (not an sm_90 GPU; rows of K not whole 16 bytes: K % 4 in tf32, K % 8
// in bf16), asked once per problem; and, at launch, the operands themselves (TMA's 16-byte
// alignment), which asks the driver nothing.
#include "harness/variant.hpp"
#include "kernels/gemm/operands.hpp"

namespace nb::linear {

Support wgmma_support(const Problem& p);
// Throws nb::Unsupported with the Hopper GEMM's refusal of these operands, if any.
void require_wgmma(const gemm::Operands& op);
void require_wgmma(const gemm::Bf16Operands& op);

}  // namespace nb::linear
