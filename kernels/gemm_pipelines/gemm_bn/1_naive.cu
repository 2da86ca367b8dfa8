// naive: one thread per output element for the GEMM (fp32 FMA, so it declines tf32:
// linear::naive_support), then one thread per column for the BatchNorm and one per row for the
// softmax, walking memory with no regard for coalescing. bf16 problems take autocast's roundings:
// h, and BatchNorm's output before the softmax, to bf16.
#include "harness/cuda_check.hpp"
#include "kernels/gemm/naive_gemm.cuh"
#include "kernels/gemm_pipelines/bn_columns.cuh"
#include "kernels/gemm_pipelines/gemm_bn/pipeline.hpp"
#include "kernels/gemm_pipelines/pipeline_op.hpp"

namespace nb::gemm_bn {
namespace {

constexpr int kThreads = 128;

unsigned blocks_for(int count) { return unsigned((count + kThreads - 1) / kThreads); }

__global__ void bn_columns_kernel(float* y, const float* scale, linear::dev::BnColumnArgs bn, int m, int n) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= n) return;
  const float s = scale ? scale[c] : 1.0f;
  for (int r = 0; r < m; ++r) y[(long long)r * n + c] *= s;
  const linear::dev::ColumnAffine f = linear::dev::commit_column(bn, c, linear::dev::column_moments(y + c, n, m));
  for (int r = 0; r < m; ++r) y[(long long)r * n + c] = fmaf(y[(long long)r * n + c], f.scale, f.shift);
}

__global__ void scale_softmax_rows_kernel(float* y, const float* post_scale, int m, int n, bool round_to_bf16) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= m) return;
  float* row = y + (long long)r * n;
  if (round_to_bf16)
    for (int c = 0; c < n; ++c) row[c] = __bfloat162float(__float2bfloat16(row[c]));
  const float s = *post_scale;
  float mx = -INFINITY, sum = 0.0f;
  for (int c = 0; c < n; ++c) mx = fmaxf(mx, s * row[c]);
  for (int c = 0; c < n; ++c) sum += expf(s * row[c] - mx);
  for (int c = 0; c < n; ++c) row[c] = expf(s * row[c] - mx) / sum;
}

void launch(BnTail tail, const Problem& p, const DeviceTensors& t, cudaStream_t s) {
  const Args a = args_of(tail, p, t);
  const bool bf16 = p.dtype == DType::bf16;
  if (bf16)
    gemm::launch_naive_gemm(a.bf16.op, a.bf16.bias, a.y, s);
  else
    gemm::launch_naive_gemm(a.op, a.bias, a.y, s);
  bn_columns_kernel<<<blocks_for(a.n), kThreads, 0, s>>>(a.y, a.column_scale, a.bn, a.m, a.n);
  NB_CHECK_LAUNCH();
  if (tail != BnTail::scale_softmax) return;
  scale_softmax_rows_kernel<<<blocks_for(a.m), kThreads, 0, s>>>(a.y, a.post_scale, a.m, a.n, bf16);
  NB_CHECK_LAUNCH();
}

}  // namespace

std::unique_ptr<Variant> make_naive_variant(BnTail tail) {
  return make_kernel_variant(
      {"naive", "naive",
       "one thread per output for x W^T + b (fp32 FMA; bf16: autocast's roundings), one per column for BatchNorm, "
       "one per row for softmax",
       [tail](const Problem& p, const DeviceTensors& t, void*, cudaStream_t s) { launch(tail, p, t, s); },
       linear::naive_support});
}

}  // namespace nb::gemm_bn
