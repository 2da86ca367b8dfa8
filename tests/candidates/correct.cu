// Planted: none. The control: a correct candidate must pass (no false alarms).
#include "planted_rmsnorm.cuh"

NB_EXPORT int nb_candidate_launch(const nb_problem* p, const nb_tensor* t, int32_t, void*, size_t, nb_stream s,
                                  char error[NB_MESSAGE_BYTES]) {
  return planted::launch_correct(p, t, cudaStream_t(s), error);
}
