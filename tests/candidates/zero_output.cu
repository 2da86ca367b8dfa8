// Planted: writes zeros everywhere (relative error 1: can never pass).
#include "planted_rmsnorm.cuh"

NB_EXPORT int nb_candidate_launch(const nb_problem* p, const nb_tensor* t, int32_t, void*, size_t, nb_stream s,
                                  char error[NB_MESSAGE_BYTES]) {
  return cudaMemsetAsync(t[2].data, 0, planted::output_bytes(t), cudaStream_t(s)) == cudaSuccess ? 0 : 1;
}
