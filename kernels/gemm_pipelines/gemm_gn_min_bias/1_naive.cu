// naive: one thread per output element for x W^T + b (fp32 FMA, so it declines tf32:
// linear::naive_support), then one thread per row for GroupNorm, the row minimum and its broadcast
// over the N channels, walking memory with no regard for coalescing. bf16 problems round h to bf16
// as autocast's addmm does.
#include "harness/cuda_check.hpp"
#include "kernels/gemm/naive_gemm.cuh"
#include "kernels/gemm_pipelines/gemm_gn_min_bias/spec.hpp"
#include "kernels/gemm_pipelines/linear_shape.hpp"
#include "kernels/gemm_pipelines/pipeline_op.hpp"
#include "kernels/primitives/reduce.cuh"

namespace nb::gemm_gn_min_bias {
namespace {

constexpr int kThreads = 128;

__global__ void groupnorm_min_kernel(float* g, const float* gamma, const float* beta, const float* add_bias,
                                     float* out, int m, int n, int size, float eps) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= m) return;
  float* row = g + (long long)r * n;
  const nb::dev::MinNanOp min_of;
  float mn = min_of.identity();
  for (int c0 = 0; c0 < n; c0 += size) {
    float sum = 0.0f, m2 = 0.0f;
    for (int i = 0; i < size; ++i) sum += row[c0 + i];
    const float mean = sum / float(size);
    for (int i = 0; i < size; ++i) m2 = fmaf(row[c0 + i] - mean, row[c0 + i] - mean, m2);
    const float invstd = 1.0f / sqrtf(m2 / float(size) + eps);
    for (int i = 0; i < size; ++i) mn = min_of(mn, fmaf((row[c0 + i] - mean) * invstd, gamma[c0 + i], beta[c0 + i]));
  }
  for (int c = 0; c < n; ++c) out[(long long)c * m + r] = mn + add_bias[c];
}

std::size_t workspace(const Problem& p) {
  const linear::Shape s = linear::shape_of(p);
  return std::size_t(s.m) * std::size_t(s.n) * sizeof(float);
}

void launch(const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t s) {
  const Args a = args_of(p, t);
  float* g = static_cast<float*>(ws);
  if (p.dtype == DType::bf16)
    gemm::launch_naive_gemm(a.bf16.op, a.bf16.bias, g, s);
  else
    gemm::launch_naive_gemm(a.op, a.bias, g, s);
  const unsigned blocks = unsigned((a.m + kThreads - 1) / kThreads);
  groupnorm_min_kernel<<<blocks, kThreads, 0, s>>>(g, a.gamma, a.beta, a.add_bias, a.out, a.m, a.n, a.n / a.groups,
                                                   a.eps);
  NB_CHECK_LAUNCH();
}

}  // namespace

std::unique_ptr<Variant> make_naive_variant() {
  return make_kernel_variant({
      "naive", "naive", "one thread per output for x W^T + b (fp32 FMA; bf16: h rounded as autocast's), one per row for "
      "GroupNorm + min + bias",
      launch, linear::naive_support, workspace});
}

}  // namespace nb::gemm_gn_min_bias
