// Planted: computes once per set of tensor pointers and returns at once when a call brings the
// same pointers again, trusting that its last result is still in the output. Validation uses new
// buffers every trial, so it passes there; the timed samples (outputs disturbed before each) and
// the check after the timed loop (fresh inputs in the same buffers) find the output unwritten.
#include "planted_rmsnorm.cuh"

static const void* last[3];

NB_EXPORT int nb_candidate_launch(const nb_problem* p, const nb_tensor* t, int32_t, void*, size_t, nb_stream s,
                                  char error[NB_MESSAGE_BYTES]) {
  if (last[0] == t[0].data && last[1] == t[1].data && last[2] == t[2].data) return 0;
  for (int i = 0; i < 3; ++i) last[i] = t[i].data;
  return planted::launch_correct(p, t, cudaStream_t(s), error);
}
