// Naive post-GEMM kernels: one thread per column (BatchNorm), per row (softmax) or per row
// (GroupNorm + min + broadcast), walking memory with no regard for coalescing.
#include "harness/cuda_check.hpp"
#include "kernels/primitives/reduce.cuh"
#include "kernels/gemm_pipelines/post_gemm.hpp"

namespace nb::linear {
namespace {

constexpr int kThreads = 128;

__global__ void naive_bn_columns_kernel(float* y, const float* scale, dev::BnColumnArgs bn, int m, int n) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= n) return;
  const float s = scale ? scale[c] : 1.0f;
  for (int r = 0; r < m; ++r) y[(long long)r * n + c] *= s;
  const dev::ColumnAffine f = dev::commit_column(bn, c, dev::column_moments(y + c, n, m));
  for (int r = 0; r < m; ++r) y[(long long)r * n + c] = fmaf(y[(long long)r * n + c], f.scale, f.shift);
}

__global__ void naive_scale_softmax_rows_kernel(float* y, const float* post_scale, int m, int n) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= m) return;
  float* row = y + (long long)r * n;
  const float s = *post_scale;
  float mx = -INFINITY, sum = 0.0f;
  for (int c = 0; c < n; ++c) mx = fmaxf(mx, s * row[c]);
  for (int c = 0; c < n; ++c) sum += expf(s * row[c] - mx);
  for (int c = 0; c < n; ++c) row[c] = expf(s * row[c] - mx) / sum;
}

__global__ void naive_groupnorm_min_kernel(float* g, const float* gamma, const float* beta, const float* add_bias,
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

unsigned blocks_for(int count) { return unsigned((count + kThreads - 1) / kThreads); }

}  // namespace

void launch_naive_bn_columns(float* y, const float* scale, const dev::BnColumnArgs& bn, int m, int n, cudaStream_t s) {
  naive_bn_columns_kernel<<<blocks_for(n), kThreads, 0, s>>>(y, scale, bn, m, n);
  NB_CHECK_LAUNCH();
}

void launch_naive_scale_softmax_rows(float* y, const float* post_scale, int m, int n, cudaStream_t s) {
  naive_scale_softmax_rows_kernel<<<blocks_for(m), kThreads, 0, s>>>(y, post_scale, m, n);
  NB_CHECK_LAUNCH();
}

void launch_naive_groupnorm_min(float* g, const float* gamma, const float* beta, const float* add_bias, float* out,
                                int m, int n, int groups, float eps, cudaStream_t s) {
  naive_groupnorm_min_kernel<<<blocks_for(m), kThreads, 0, s>>>(g, gamma, beta, add_bias, out, m, n, n / groups, eps);
  NB_CHECK_LAUNCH();
}

}  // namespace nb::linear
