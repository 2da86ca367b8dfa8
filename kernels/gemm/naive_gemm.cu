// The naive GEMM: one thread per element of C, threadIdx.x along N so that C stores coalesce.
#include "kernels/gemm/naive_gemm.cuh"

#include "harness/cuda_check.hpp"

namespace nb::gemm {
namespace {

__global__ void naive_gemm_kernel(Operands op, const float* bias, float* c) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= op.m || col >= op.n) return;
  const float* a = op.a + static_cast<long long>(row) * op.k;
  const float* b = op.b + static_cast<long long>(col) * op.k;
  float sum = 0.f;
  for (int i = 0; i < op.k; ++i) sum = fmaf(a[i], b[i], sum);
  if (bias != nullptr) sum += bias[col];
  c[static_cast<long long>(row) * op.n + col] = sum;
}

}  // namespace

void launch_naive_gemm(const Operands& op, const float* bias_or_null, float* c, cudaStream_t stream) {
  if (op.m <= 0 || op.n <= 0) return;
  const dim3 block(32, 8);
  const dim3 grid(unsigned((op.n + 31) / 32), unsigned((op.m + 7) / 8));
  naive_gemm_kernel<<<grid, block, 0, stream>>>(op, bias_or_null, c);
  NB_CHECK_LAUNCH();
}

}  // namespace nb::gemm
