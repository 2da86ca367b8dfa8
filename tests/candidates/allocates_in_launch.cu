// Planted: correct, but it allocates (and frees) device scratch in every launch: the timed path
// pays for cudaMalloc. Its results pass; the allocation is flagged.
#include "planted_rmsnorm.cuh"

NB_EXPORT int nb_candidate_launch(const nb_problem* p, const nb_tensor* t, int32_t, void*, size_t, nb_stream s,
                                  char error[NB_MESSAGE_BYTES]) {
  void* scratch = nullptr;
  if (cudaMalloc(&scratch, 1 << 20) != cudaSuccess) return 1;
  const int status = planted::launch_correct(p, t, cudaStream_t(s), error);
  cudaStreamSynchronize(cudaStream_t(s));
  cudaFree(scratch);
  return status;
}
