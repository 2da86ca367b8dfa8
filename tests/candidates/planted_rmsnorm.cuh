// Shared by the planted rmsnorm_rows candidates: a correct kernel and its launch, so that each
// planted file differs from a passing candidate by its one fault. They go through the same
// nvcc-load-run path as a user's candidate (normbench eval FILE.cu) in tests/gpu.
#pragma once
#include <cuda_runtime.h>
#include <stdio.h>

#include "normbench/candidate.h"

namespace planted {

constexpr int kThreads = 256;

__global__ void rmsnorm_rows_kernel(const float* x, const float* w, float* y, long long n, float eps,
                                    long long skip_index) {
  __shared__ float partial[kThreads / 32];
  const float* row = x + blockIdx.x * n;
  float v = 0.0f;
  for (long long i = threadIdx.x; i < n; i += kThreads) v += row[i] * row[i];
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = v;
  __syncthreads();
  v = threadIdx.x % 32 < kThreads / 32 ? partial[threadIdx.x % 32] : 0.0f;
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  const float scale = rsqrtf(v / float(n) + eps);
  for (long long i = threadIdx.x; i < n; i += kThreads)
    if (blockIdx.x * n + i != skip_index) y[blockIdx.x * n + i] = row[i] * scale * w[i];
}

inline long long rows(const nb_tensor* t) { return t[0].shape[0]; }
inline long long cols(const nb_tensor* t) { return t[0].shape[1]; }
inline size_t output_bytes(const nb_tensor* t) { return size_t(t[2].elements) * sizeof(float); }

// The correct computation, on `stream`; skip_index >= 0 leaves that output element unwritten.
inline int launch_correct(const nb_problem* p, const nb_tensor* t, cudaStream_t stream, char* error,
                          long long skip_index = -1) {
  rmsnorm_rows_kernel<<<unsigned(rows(t)), kThreads, 0, stream>>>(
      static_cast<const float*>(t[0].data), static_cast<const float*>(t[1].data), static_cast<float*>(t[2].data),
      cols(t), float(nb_param_value(p, "eps", 1e-5)), skip_index);
  const cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess) snprintf(error, NB_MESSAGE_BYTES, "%s", cudaGetErrorString(status));
  return status == cudaSuccess ? 0 : 1;
}

}  // namespace planted

NB_EXPORT int nb_candidate_abi_version(void) { return NB_CANDIDATE_ABI_VERSION; }
