// The linear layer's GEMM at the problem's precision for the variants that start from cuBLAS
// (pipeline_op.hpp): addmm's bias rows (a bf16 bias widened) plus the accumulated GEMM.
#include "baselines/cublas/cublas_gemm.hpp"
#include "kernels/gemm_pipelines/pipeline_op.hpp"
#include "kernels/gemm_pipelines/post_gemm.hpp"

namespace nb::linear {
namespace {

// The bias as fp32 for addmm's bias rows: the problem's own (fp32, tf32), or a bf16 bias widened
// into `scratch` (n floats) on `stream`.
const float* fp32_bias(const Problem& p, const float* bias, const Bf16Linear& bf16, float* scratch, cudaStream_t stream) {
  if (p.dtype != DType::bf16) return bias;
  launch_widen(bf16.bias, scratch, bf16.op.n, stream);
  return scratch;
}

}  // namespace

void cublas_linear(const Problem& p, const gemm::Operands& op, const float* bias, const Bf16Linear& bf16, float* h,
                   float* bias_scratch, cudaStream_t stream) {
  const Shape s = shape_of(p);
  launch_bias_rows(h, fp32_bias(p, bias, bf16, bias_scratch, stream), int(s.m), int(s.n), stream);
  if (p.dtype == DType::bf16)
    cublas::gemm_bf16(bf16.op.a, bf16.op.b, h, bf16.op.m, bf16.op.n, bf16.op.k, true, stream);
  else
    cublas::gemm(op.a, op.b, h, op.m, op.n, op.k, p.dtype == DType::tf32, true, stream);
}

}  // namespace nb::linear
