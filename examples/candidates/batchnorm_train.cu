// A normbench candidate for batchnorm_train (BatchNorm training forward, PyTorch semantics): one
// block per channel; two passes over the channel's N*H*W values (the mean, then the mean square
// deviation from it, so that |mean| >> std does not cancel), then the normalising pass, the
// saved statistics and the running statistics (momentum, unbiased variance). Run it with
//   normbench eval batchnorm_train.cu --op batchnorm_train --suite quick
#include <cuda_runtime.h>
#include <stdio.h>

#include "normbench/candidate.h"

namespace {

constexpr int kThreads = 256;

__device__ double block_sum(double v) {
  __shared__ double partial[kThreads / 32];
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  __syncthreads();  // partial[] may still be read by the previous call
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  v = lane < kThreads / 32 ? partial[lane] : 0.0;
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

struct Args {
  const float *x, *gamma, *beta;
  float *running_mean, *running_var, *y, *save_mean, *save_invstd;
  long long n, c, hw;
  float eps, momentum;
};

__global__ void batchnorm_train_kernel(Args a) {
  const long long channel = blockIdx.x, count = a.n * a.hw;
  auto at = [&](long long j) { return (j / a.hw) * a.c * a.hw + channel * a.hw + j % a.hw; };
  double sum = 0;
  for (long long j = threadIdx.x; j < count; j += kThreads) sum += a.x[at(j)];
  const double mean = block_sum(sum) / double(count);
  double deviation = 0;
  for (long long j = threadIdx.x; j < count; j += kThreads) {
    const double d = a.x[at(j)] - mean;
    deviation += d * d;
  }
  const double var = block_sum(deviation) / double(count);
  const float invstd = float(1.0 / sqrt(var + a.eps));
  const float scale = invstd * a.gamma[channel], shift = a.beta[channel] - float(mean) * scale;
  for (long long j = threadIdx.x; j < count; j += kThreads) a.y[at(j)] = a.x[at(j)] * scale + shift;
  if (threadIdx.x == 0) {
    a.save_mean[channel] = float(mean);
    a.save_invstd[channel] = invstd;
    const double unbiased = count > 1 ? var * double(count) / double(count - 1) : var;
    a.running_mean[channel] = float((1 - a.momentum) * a.running_mean[channel] + a.momentum * mean);
    a.running_var[channel] = float((1 - a.momentum) * a.running_var[channel] + a.momentum * unbiased);
  }
}

}  // namespace

NB_EXPORT int nb_candidate_abi_version(void) { return NB_CANDIDATE_ABI_VERSION; }

// Tensors (normbench list tensors --op batchnorm_train): x, gamma, beta, running_mean,
// running_var (inout), y, save_mean, save_invstd.
NB_EXPORT int nb_candidate_launch(const nb_problem* p, const nb_tensor* t, int32_t count, void* workspace,
                                  size_t workspace_bytes, nb_stream stream, char error[NB_MESSAGE_BYTES]) {
  if (count != 8) {
    snprintf(error, NB_MESSAGE_BYTES, "expected 8 tensors, got %d", count);
    return 1;
  }
  Args a;
  a.x = static_cast<const float*>(t[0].data);
  a.gamma = static_cast<const float*>(t[1].data);
  a.beta = static_cast<const float*>(t[2].data);
  a.running_mean = static_cast<float*>(t[3].data);
  a.running_var = static_cast<float*>(t[4].data);
  a.y = static_cast<float*>(t[5].data);
  a.save_mean = static_cast<float*>(t[6].data);
  a.save_invstd = static_cast<float*>(t[7].data);
  a.n = (long long)nb_param_value(p, "n", 0);
  a.c = (long long)nb_param_value(p, "c", 0);
  a.hw = (long long)(nb_param_value(p, "h", 1) * nb_param_value(p, "w", 1));
  a.eps = float(nb_param_value(p, "eps", 1e-5));
  a.momentum = float(nb_param_value(p, "momentum", 0.1));
  batchnorm_train_kernel<<<unsigned(a.c), kThreads, 0, cudaStream_t(stream)>>>(a);
  const cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess) snprintf(error, NB_MESSAGE_BYTES, "%s", cudaGetErrorString(status));
  return status == cudaSuccess ? 0 : 1;
}
