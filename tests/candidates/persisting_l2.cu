// Planted: correct, but it sets aside the largest persisting L2 carve-out the GPU allows and an
// access-policy window with persisting hits over its input on the harness's stream: the input
// stays in L2 across the harness's flush and the timed samples read it at L2 speed.
#include "planted_rmsnorm.cuh"

static int set_persisting_window(const nb_tensor* t, cudaStream_t stream, char* error) {
  int device = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&prop, device) != cudaSuccess)
    return planted::launch_status(error);
  if (prop.persistingL2CacheMaxSize <= 0 || prop.accessPolicyMaxWindowSize <= 0) {
    snprintf(error, NB_MESSAGE_BYTES, "this GPU has no persisting L2");
    return 1;
  }
  if (cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, size_t(prop.persistingL2CacheMaxSize)) != cudaSuccess)
    return planted::launch_status(error);
  const size_t bytes = size_t(t[0].elements) * sizeof(float);
  cudaStreamAttrValue value{};
  value.accessPolicyWindow.base_ptr = t[0].data;
  value.accessPolicyWindow.num_bytes = bytes < size_t(prop.accessPolicyMaxWindowSize) ? bytes : size_t(prop.accessPolicyMaxWindowSize);
  value.accessPolicyWindow.hitRatio = 1.0f;
  value.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
  value.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
  if (cudaStreamSetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &value) != cudaSuccess)
    return planted::launch_status(error);
  return 0;
}

NB_EXPORT int nb_candidate_launch(const nb_problem* p, const nb_tensor* t, int32_t, void*, size_t, nb_stream s,
                                  char error[NB_MESSAGE_BYTES]) {
  if (set_persisting_window(t, cudaStream_t(s), error)) return 1;
  return planted::launch_correct(p, t, cudaStream_t(s), error);
}
