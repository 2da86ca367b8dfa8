#include "kernels/gemm_pipelines/wgmma_support.hpp"

#include <string>

#include "harness/errors.hpp"
#include "kernels/gemm/sm90/wgmma_gemm.hpp"
#include "kernels/gemm_pipelines/linear_shape.hpp"

namespace nb::linear {

Support wgmma_support(const Problem& p) {
  const Shape s = shape_of(p);
  const bool bf16 = p.dtype == DType::bf16;
  if (!bf16 && !s.tf32())
    return Support::no("the Hopper GEMM multiplies on tensor cores (tf32 here); an fp32 problem asks for IEEE fp32 "
                       "products (fused_epilogue runs it on the SIMT GEMM)");
  std::string why = gemm::sm90::wgmma_device_refusal();
  if (why.empty()) why = gemm::sm90::wgmma_shape_refusal(int(s.m), int(s.n), int(s.k), bf16 ? 2 : 4);
  return why.empty() ? Support::yes() : Support::no(why);
}

namespace {

template <class Operands>
void require(const Operands& op) {
  if (const std::string why = gemm::sm90::wgmma_operands_refusal(op); !why.empty()) throw Unsupported(why);
}

}  // namespace

void require_wgmma(const gemm::Operands& op) { require(op); }
void require_wgmma(const gemm::Bf16Operands& op) { require(op); }

}  // namespace nb::linear
