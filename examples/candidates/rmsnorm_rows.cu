// A normbench candidate for rmsnorm_rows (y = x / sqrt(mean(x^2 over a row) + eps) * w, x of
// shape (M, N)): one block per row, the sum of squares reduced by warp shuffles, then one pass
// that scales. Copy it, change the kernel, and run
//   normbench eval rmsnorm_rows.cu --op rmsnorm_rows --suite quick
#include <cuda_runtime.h>
#include <stdio.h>

#include "normbench/candidate.h"

namespace {

constexpr int kThreads = 256;

__device__ float block_sum(float v) {
  __shared__ float partial[kThreads / 32];
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  v = lane < kThreads / 32 ? partial[lane] : 0.0f;
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;  // every thread holds the block's sum
}

__global__ void rmsnorm_rows_kernel(const float* x, const float* w, float* y, long long n, float eps) {
  const float* row = x + blockIdx.x * n;
  float* out = y + blockIdx.x * n;
  float squares = 0.0f;
  for (long long i = threadIdx.x; i < n; i += kThreads) squares += row[i] * row[i];
  const float scale = rsqrtf(block_sum(squares) / float(n) + eps);
  for (long long i = threadIdx.x; i < n; i += kThreads) out[i] = row[i] * scale * w[i];
}

}  // namespace

NB_EXPORT int nb_candidate_abi_version(void) { return NB_CANDIDATE_ABI_VERSION; }

// Tensors in the op's order (normbench list tensors --op rmsnorm_rows): x (M, N), w (N,), y (M, N).
NB_EXPORT int nb_candidate_launch(const nb_problem* problem, const nb_tensor* t, int32_t count, void* workspace,
                                  size_t workspace_bytes, nb_stream stream, char error[NB_MESSAGE_BYTES]) {
  if (count != 3) {
    snprintf(error, NB_MESSAGE_BYTES, "expected 3 tensors (x, w, y), got %d", count);
    return 1;
  }
  const long long m = t[0].shape[0], n = t[0].shape[1];
  const float eps = float(nb_param_value(problem, "eps", 1e-5));
  rmsnorm_rows_kernel<<<unsigned(m), kThreads, 0, cudaStream_t(stream)>>>(
      static_cast<const float*>(t[0].data), static_cast<const float*>(t[1].data), static_cast<float*>(t[2].data), n, eps);
  const cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess) snprintf(error, NB_MESSAGE_BYTES, "%s", cudaGetErrorString(status));
  return status == cudaSuccess ? 0 : 1;
}
