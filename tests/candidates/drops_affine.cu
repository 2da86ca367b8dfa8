// Planted: BatchNorm's training forward without its affine: y = (x - mean) * invstd, as if gamma
// were 1 and beta 0 (here: the example's correct kernel, then gamma and beta taken back out of
// y); the saved and running statistics are right. No distribution draws gamma = 1 and beta = 0,
// so y is wrong on every distribution.
#define nb_candidate_launch correct_batchnorm_launch
#include "../../examples/candidates/batchnorm_train.cu"
#undef nb_candidate_launch

__global__ void remove_affine(float* y, const float* gamma, const float* beta, long long c, long long hw,
                              long long total) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < total; i += (long long)gridDim.x * blockDim.x) {
    const long long channel = (i / hw) % c;
    y[i] = (y[i] - beta[channel]) / gamma[channel];
  }
}

NB_EXPORT int nb_candidate_launch(const nb_problem* p, const nb_tensor* t, int32_t count, void* workspace,
                                  size_t workspace_bytes, nb_stream stream, char error[NB_MESSAGE_BYTES]) {
  if (correct_batchnorm_launch(p, t, count, workspace, workspace_bytes, stream, error)) return 1;
  const long long c = (long long)nb_param_value(p, "c", 0);
  const long long hw = (long long)(nb_param_value(p, "h", 1) * nb_param_value(p, "w", 1));
  remove_affine<<<1024, 256, 0, cudaStream_t(stream)>>>(static_cast<float*>(t[5].data), static_cast<const float*>(t[1].data),
                                                      static_cast<const float*>(t[2].data), c, hw, t[5].elements);
  const cudaError_t status = cudaGetLastError();
  if (status != cudaSuccess) snprintf(error, NB_MESSAGE_BYTES, "%s", cudaGetErrorString(status));
  return status == cudaSuccess ? 0 : 1;
}
