#include "kernels/gemm_pipelines/wgmma_support.hpp"

#include <string>

#include "harness/errors.hpp"
#include "kernels/gemm/sm90/wgmma_gemm.hpp"
#include "kernels/gemm_pipelines/linear_shape.hpp"

namespace nb::linear {

Support wgmma_tf32_support(const Problem& p) {
  const Shape s = shape_of(p);
  if (p.dtype == DType::bf16)
    return Support::no("its epilogues run on the Hopper GEMM's tf32 instance: no bf16 one of them yet (issue 32)");
  if (!s.tf32())
    return Support::no("the Hopper GEMM multiplies on tensor cores (tf32 here); an fp32 problem asks for IEEE fp32 "
                       "products (fused_epilogue runs it on the SIMT GEMM)");
  std::string why = gemm::sm90::wgmma_device_refusal();
  if (why.empty()) why = gemm::sm90::wgmma_shape_refusal(int(s.m), int(s.n), int(s.k), sizeof(float));
  return why.empty() ? Support::yes() : Support::no(why);
}

void require_wgmma(const gemm::Operands& op) {
  if (const std::string why = gemm::sm90::wgmma_operands_refusal(op); !why.empty()) throw Unsupported(why);
}

}  // namespace nb::linear
