// Shared by the planted rmsnorm_rows candidates: a correct kernel and its launch, so that each
// planted file differs from a passing candidate by its one fault. They go through the same
// nvcc-load-run path as a user's candidate (normbench eval FILE.cu) in tests/gpu.
#pragma once
#include <cuda_runtime.h>
#include <stdio.h>

#include "normbench/candidate.h"

namespace planted {

constexpr int kThreads = 256;

// The sum of v over the block's kThreads threads, in every thread (called once per kernel).
__device__ inline float block_sum(float v) {
  __shared__ float partial[kThreads / 32];
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = v;
  __syncthreads();
  v = threadIdx.x % 32 < kThreads / 32 ? partial[threadIdx.x % 32] : 0.0f;
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

// The block's row (blockIdx.x) of y; skip_index >= 0 leaves that element of y unwritten.
__device__ inline void rmsnorm_row(const float* x, const float* w, float* y, long long n, float eps,
                                   long long skip_index) {
  const float* row = x + blockIdx.x * n;
  float v = 0.0f;
  for (long long i = threadIdx.x; i < n; i += kThreads) v += row[i] * row[i];
  const float scale = rsqrtf(block_sum(v) / float(n) + eps);
  for (long long i = threadIdx.x; i < n; i += kThreads)
    if (blockIdx.x * n + i != skip_index) y[blockIdx.x * n + i] = row[i] * scale * w[i];
}

__global__ void rmsnorm_rows_kernel(const float* x, const float* w, float* y, long long n, float eps,
                                    long long skip_index) {
  rmsnorm_row(x, w, y, n, eps, skip_index);
}

inline long long rows(const nb_tensor* t) { return t[0].shape[0]; }
inline long long cols(const nb_tensor* t) { return t[0].shape[1]; }
inline size_t output_bytes(const nb_tensor* t) { return size_t(t[2].elements) * sizeof(float); }

// What the kernel needs, copied out of the descriptors (which live only during a launch call).
struct RowsArgs {
  const float* x;
  const float* w;
  float* y;
  long long rows, cols;
  float eps;
};

inline RowsArgs args_of(const nb_problem* p, const nb_tensor* t) {
  return {static_cast<const float*>(t[0].data), static_cast<const float*>(t[1].data), static_cast<float*>(t[2].data),
          rows(t), cols(t), float(nb_param_value(p, "eps", 1e-5))};
}

// Reports a launch error into `error` (when given); 0 on success.
inline int launch_status(char* error) {
  const cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess && error) snprintf(error, NB_MESSAGE_BYTES, "%s", cudaGetErrorString(status));
  return status == cudaSuccess ? 0 : 1;
}

inline int launch_rows(const RowsArgs& a, cudaStream_t stream, char* error, long long skip_index = -1) {
  rmsnorm_rows_kernel<<<unsigned(a.rows), kThreads, 0, stream>>>(a.x, a.w, a.y, a.cols, a.eps, skip_index);
  return launch_status(error);
}

// The correct computation, on `stream`; skip_index >= 0 leaves that output element unwritten.
inline int launch_correct(const nb_problem* p, const nb_tensor* t, cudaStream_t stream, char* error,
                          long long skip_index = -1) {
  return launch_rows(args_of(p, t), stream, error, skip_index);
}

}  // namespace planted

NB_EXPORT int nb_candidate_abi_version(void) { return NB_CANDIDATE_ABI_VERSION; }
