// Planted: an fp32 problem computed through bf16: the input and the weight are rounded to bf16
// before use and the output on its way out (the sums stay in fp32). Errors near 2^-9 relative,
// far above the fp32 tolerance: wrong on every distribution.
#include <cuda_bf16.h>

#include "planted_rmsnorm.cuh"

__device__ float via_bf16(float v) { return __bfloat162float(__float2bfloat16_rn(v)); }

__global__ void rows_through_bf16(const float* x, const float* w, float* y, long long n, float eps) {
  const float* row = x + blockIdx.x * n;
  float v = 0.0f;
  for (long long i = threadIdx.x; i < n; i += planted::kThreads) v += via_bf16(row[i]) * via_bf16(row[i]);
  const float scale = rsqrtf(planted::block_sum(v) / float(n) + eps);
  for (long long i = threadIdx.x; i < n; i += planted::kThreads)
    y[blockIdx.x * n + i] = via_bf16(via_bf16(row[i]) * scale * via_bf16(w[i]));
}

NB_EXPORT int nb_candidate_launch(const nb_problem* p, const nb_tensor* t, int32_t, void*, size_t, nb_stream s,
                                  char error[NB_MESSAGE_BYTES]) {
  const planted::RowsArgs a = planted::args_of(p, t);
  rows_through_bf16<<<unsigned(a.rows), planted::kThreads, 0, cudaStream_t(s)>>>(a.x, a.w, a.y, a.cols, a.eps);
  return planted::launch_status(error);
}
