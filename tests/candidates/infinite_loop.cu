// Planted: a kernel that never ends. Contained: the watchdog kills its worker ('timed out').
#include "planted_rmsnorm.cuh"

__global__ void spin(float* y) {
  while (clock64() >= 0) {
  }
  y[0] = 0.0f;
}

NB_EXPORT int nb_candidate_launch(const nb_problem* p, const nb_tensor* t, int32_t, void*, size_t, nb_stream s,
                                  char error[NB_MESSAGE_BYTES]) {
  spin<<<1, 1, 0, cudaStream_t(s)>>>(static_cast<float*>(t[2].data));
  return 0;
}
