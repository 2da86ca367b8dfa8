// Planted: a kernel that writes far outside every allocation: an illegal address, which destroys
// the CUDA context of its process. Contained: the case is 'crashed', the run goes on.
#include "planted_rmsnorm.cuh"

__global__ void wild_write(float* y) { y[(1ll << 40) + threadIdx.x] = 1.0f; }

NB_EXPORT int nb_candidate_launch(const nb_problem* p, const nb_tensor* t, int32_t, void*, size_t, nb_stream s,
                                  char error[NB_MESSAGE_BYTES]) {
  wild_write<<<1, 32, 0, cudaStream_t(s)>>>(static_cast<float*>(t[2].data));
  return 0;
}
