// The naive GEMM: one thread per element of C, threadIdx.x along N so that C stores coalesce.
#include "kernels/gemm/naive_gemm.cuh"

#include <type_traits>

#include "harness/cuda_check.hpp"

namespace nb::gemm {
namespace {

__device__ float widen(float v) { return v; }
__device__ float widen(__nv_bfloat16 v) { return __bfloat162float(v); }

// bf16 operands: h rounded to bf16 before it is stored widened (autocast's addmm writes bf16).
template <class Element>
__global__ void naive_gemm_kernel(OperandsOf<Element> op, const Element* bias, float* c) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= op.m || col >= op.n) return;
  const Element* a = op.a + static_cast<long long>(row) * op.k;
  const Element* b = op.b + static_cast<long long>(col) * op.k;
  float sum = 0.f;
  for (int i = 0; i < op.k; ++i) sum = fmaf(widen(a[i]), widen(b[i]), sum);
  if (bias != nullptr) sum += widen(bias[col]);
  if constexpr (!std::is_same_v<Element, float>) sum = __bfloat162float(__float2bfloat16(sum));
  c[static_cast<long long>(row) * op.n + col] = sum;
}

template <class Element>
void launch(const OperandsOf<Element>& op, const Element* bias_or_null, float* c, cudaStream_t stream) {
  if (op.m <= 0 || op.n <= 0) return;
  const dim3 block(32, 8);
  const dim3 grid(unsigned((op.n + 31) / 32), unsigned((op.m + 7) / 8));
  naive_gemm_kernel<<<grid, block, 0, stream>>>(op, bias_or_null, c);
  NB_CHECK_LAUNCH();
}

}  // namespace

void launch_naive_gemm(const Operands& op, const float* bias_or_null, float* c, cudaStream_t stream) {
  launch(op, bias_or_null, c, stream);
}

void launch_naive_gemm(const Bf16Operands& op, const __nv_bfloat16* bias_or_null, float* c, cudaStream_t stream) {
  launch(op, bias_or_null, c, stream);
}

}  // namespace nb::gemm
