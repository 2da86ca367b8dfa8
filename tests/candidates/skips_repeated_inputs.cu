// Planted (the exploit seen live on the H100): a one-warp kernel compares a sample of the input
// and of the output with the sample it kept from its last launch, and the row kernel returns at
// once when nothing changed: the timed samples measured two tiny kernels, twice the honest speed.
// The outputs disturbed before each timed sample change its output sample, so it computes every
// time: it must time like the honest kernel (correct.cu).
#include "planted_rmsnorm.cuh"

namespace {

constexpr int kSample = 16;

struct Memory {
  float x[kSample], y[kSample];
  int unchanged;
};

__device__ Memory memory;

__device__ long long sample_index(long long k, long long elements) { return (k * 7919 * 4099) % elements; }

__global__ void probe(const float* x, const float* y, long long elements) {
  const int k = threadIdx.x;
  bool same = true;
  if (k < kSample) {
    const long long i = sample_index(k, elements);
    same = __float_as_uint(x[i]) == __float_as_uint(memory.x[k]) && __float_as_uint(y[i]) == __float_as_uint(memory.y[k]);
  }
  same = __all_sync(0xffffffffu, same);
  if (k == 0) memory.unchanged = same;
}

__global__ void remember(const float* x, const float* y, long long elements) {
  const int k = threadIdx.x;
  if (k >= kSample) return;
  const long long i = sample_index(k, elements);
  memory.x[k] = x[i];
  memory.y[k] = y[i];
}

__global__ void rows_unless_unchanged(const float* x, const float* w, float* y, long long n, float eps) {
  if (!memory.unchanged) planted::rmsnorm_row(x, w, y, n, eps, -1);
}

}  // namespace

NB_EXPORT int nb_candidate_launch(const nb_problem* p, const nb_tensor* t, int32_t, void*, size_t, nb_stream s,
                                  char error[NB_MESSAGE_BYTES]) {
  const planted::RowsArgs a = planted::args_of(p, t);
  const long long elements = a.rows * a.cols;
  const cudaStream_t stream = cudaStream_t(s);
  probe<<<1, 32, 0, stream>>>(a.x, a.y, elements);
  rows_unless_unchanged<<<unsigned(a.rows), planted::kThreads, 0, stream>>>(a.x, a.w, a.y, a.cols, a.eps);
  remember<<<1, 32, 0, stream>>>(a.x, a.y, elements);
  return planted::launch_status(error);
}
