// Planted: correct work, on a stream of its own that the harness's stream never waits for.
#include "planted_rmsnorm.cuh"

static cudaStream_t side;

NB_EXPORT int nb_candidate_prepare(const nb_problem*, char error[NB_MESSAGE_BYTES]) {
  if (!side && cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking) != cudaSuccess) {
    snprintf(error, NB_MESSAGE_BYTES, "cannot create a stream");
    return 1;
  }
  return 0;
}

NB_EXPORT int nb_candidate_launch(const nb_problem* p, const nb_tensor* t, int32_t, void*, size_t, nb_stream s,
                                  char error[NB_MESSAGE_BYTES]) {
  return planted::launch_correct(p, t, side, error);
}
