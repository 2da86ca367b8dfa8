// Planted: sums each row's squares with atomics into its workspace, trusting the workspace to
// start at zero (it puts the zero back when done, so it works wherever the memory came zeroed).
// The harness fills the workspace with a NaN or a huge value before every validated launch:
// wrong everywhere.
#include "planted_rmsnorm.cuh"

__global__ void rows_with_scratch(const float* x, const float* w, float* y, float* scratch, long long n, float eps) {
  const float* row = x + blockIdx.x * n;
  float v = 0.0f;
  for (long long i = threadIdx.x; i < n; i += planted::kThreads) v += row[i] * row[i];
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  if (threadIdx.x % 32 == 0) atomicAdd(&scratch[blockIdx.x], v);
  __syncthreads();
  const float scale = rsqrtf(*(volatile float*)&scratch[blockIdx.x] / float(n) + eps);
  for (long long i = threadIdx.x; i < n; i += planted::kThreads) y[blockIdx.x * n + i] = row[i] * scale * w[i];
  __syncthreads();
  if (threadIdx.x == 0) scratch[blockIdx.x] = 0.0f;
}

NB_EXPORT size_t nb_candidate_workspace_bytes(const nb_problem* p) {
  return size_t(nb_param_value(p, "m", 0)) * sizeof(float);
}

NB_EXPORT int nb_candidate_launch(const nb_problem* p, const nb_tensor* t, int32_t, void* workspace, size_t, nb_stream s,
                                  char error[NB_MESSAGE_BYTES]) {
  const planted::RowsArgs a = planted::args_of(p, t);
  rows_with_scratch<<<unsigned(a.rows), planted::kThreads, 0, cudaStream_t(s)>>>(a.x, a.w, a.y,
                                                                                  static_cast<float*>(workspace), a.cols, a.eps);
  return planted::launch_status(error);
}
