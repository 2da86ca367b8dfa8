// Planted: BatchNorm in inference form on a training-mode problem: it normalises with the running
// statistics instead of the batch's, and leaves them as they were. Wrong on every distribution.
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>

#include "normbench/candidate.h"

__global__ void bn_inference(const float* x, const float* gamma, const float* beta, const float* rm, const float* rv,
                             float* y, float* save_mean, float* save_invstd, long long n, long long c, long long hw,
                             float eps) {
  const long long total = n * c * hw;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < total; i += (long long)gridDim.x * blockDim.x) {
    const long long ch = (i / hw) % c;
    const float invstd = rsqrtf(rv[ch] + eps);
    y[i] = (x[i] - rm[ch]) * invstd * gamma[ch] + beta[ch];
    if (i < c) {
      save_mean[i] = rm[i];
      save_invstd[i] = rsqrtf(rv[i] + eps);
    }
  }
}

NB_EXPORT int nb_candidate_abi_version(void) { return NB_CANDIDATE_ABI_VERSION; }

NB_EXPORT int nb_candidate_launch(const nb_problem* p, const nb_tensor* t, int32_t count, void*, size_t, nb_stream s,
                                  char error[NB_MESSAGE_BYTES]) {
  if (count != 8) return 1;
  const long long n = (long long)nb_param_value(p, "n", 0), c = (long long)nb_param_value(p, "c", 0);
  const long long hw = (long long)(nb_param_value(p, "h", 1) * nb_param_value(p, "w", 1));
  bn_inference<<<1024, 256, 0, cudaStream_t(s)>>>(
      (const float*)t[0].data, (const float*)t[1].data, (const float*)t[2].data, (const float*)t[3].data,
      (const float*)t[4].data, (float*)t[5].data, (float*)t[6].data, (float*)t[7].data, n, c, hw,
      float(nb_param_value(p, "eps", 1e-5)));
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
