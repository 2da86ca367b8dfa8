// Planted: correct output, then it zeroes its input's first element (inputs are hashed).
#include "planted_rmsnorm.cuh"

NB_EXPORT int nb_candidate_launch(const nb_problem* p, const nb_tensor* t, int32_t, void*, size_t, nb_stream s,
                                  char error[NB_MESSAGE_BYTES]) {
  if (planted::launch_correct(p, t, cudaStream_t(s), error)) return 1;
  return cudaMemsetAsync(t[0].data, 0, sizeof(float), cudaStream_t(s)) == cudaSuccess ? 0 : 1;
}
