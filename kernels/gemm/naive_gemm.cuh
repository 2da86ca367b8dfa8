#pragma once
// The naive GEMM, one thread per output element looping over k with fp32 FMA: C = A B^T (+ bias
// per column). The plain reference kernel the tiled pipelines are measured against.
#include <cuda_runtime.h>

#include "kernels/gemm/operands.hpp"

namespace nb::gemm {

// c is (m, n) row-major; bias_or_null is (n) or nullptr. Asynchronous on `stream`.
void launch_naive_gemm(const Operands& op, const float* bias_or_null, float* c, cudaStream_t stream);
// bf16 operands (a bf16 problem under autocast): fp32 FMA over the widened values, the bias added,
// then h rounded to bf16 as autocast's addmm writes it, stored widened in c.
void launch_naive_gemm(const Bf16Operands& op, const __nv_bfloat16* bias_or_null, float* c, cudaStream_t stream);

}  // namespace nb::gemm
