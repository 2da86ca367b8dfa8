#pragma once
// When a pipeline variant runs on our Hopper GEMM (kernels/gemm/sm90/): a tf32 problem (an fp32
// one asks for IEEE fp32 products, which tensor cores do not make) whose shape the Hopper GEMM
// does not refuse (not an sm_90 GPU, K % 4), asked once per problem; and, at launch, the operands
// themselves (TMA's 16-byte alignment), which asks the driver nothing.
#include "harness/variant.hpp"
#include "kernels/gemm/operands.hpp"

namespace nb::linear {

Support wgmma_tf32_support(const Problem& p);
// Throws nb::Unsupported with the Hopper GEMM's refusal of these operands, if any.
void require_wgmma(const gemm::Operands& op);

}  // namespace nb::linear
