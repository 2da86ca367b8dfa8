// Planted: computes once per problem, then replays that first result into every later call's
// output (a cache keyed on nothing). Fresh inputs per trial make the replay wrong.
#include "planted_rmsnorm.cuh"

static void* cached;
static size_t cached_bytes;
static bool filled;

NB_EXPORT int nb_candidate_prepare(const nb_problem* p, char error[NB_MESSAGE_BYTES]) {
  filled = false;
  const size_t bytes = size_t(nb_param_value(p, "m", 0) * nb_param_value(p, "n", 0)) * sizeof(float);
  if (bytes > cached_bytes) {
    cudaFree(cached);
    if (cudaMalloc(&cached, bytes) != cudaSuccess) return 1;
    cached_bytes = bytes;
  }
  return 0;
}

NB_EXPORT int nb_candidate_launch(const nb_problem* p, const nb_tensor* t, int32_t, void*, size_t, nb_stream s,
                                  char error[NB_MESSAGE_BYTES]) {
  const size_t bytes = planted::output_bytes(t);
  if (!filled) {
    if (planted::launch_correct(p, t, cudaStream_t(s), error)) return 1;
    filled = true;
    return cudaMemcpyAsync(cached, t[2].data, bytes, cudaMemcpyDeviceToDevice, cudaStream_t(s)) == cudaSuccess ? 0 : 1;
  }
  return cudaMemcpyAsync(t[2].data, cached, bytes, cudaMemcpyDeviceToDevice, cudaStream_t(s)) == cudaSuccess ? 0 : 1;
}
