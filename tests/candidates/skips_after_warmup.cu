// Planted: correct for its first 10 launches (validation with two distributions x 3 trials takes
// 6), then returns at once: the timed loop measures nothing. The check after the timed loop
// finds its outputs unwritten.
#include "planted_rmsnorm.cuh"

static long calls;

NB_EXPORT int nb_candidate_launch(const nb_problem* p, const nb_tensor* t, int32_t, void*, size_t, nb_stream s,
                                  char error[NB_MESSAGE_BYTES]) {
  if (++calls > 10) return 0;
  return planted::launch_correct(p, t, cudaStream_t(s), error);
}
