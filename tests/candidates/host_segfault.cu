// Planted: the host side of launch dereferences a null pointer (SIGSEGV in the worker).
#include "planted_rmsnorm.cuh"

NB_EXPORT int nb_candidate_launch(const nb_problem* p, const nb_tensor* t, int32_t, void*, size_t, nb_stream s,
                                  char error[NB_MESSAGE_BYTES]) {
  volatile int* nowhere = nullptr;
  *nowhere = 1;
  return 0;
}
