// Planted: written for the kb suite's shapes only: each of the 256 threads takes n / 256
// consecutive elements of its row, with no tail, and nb_candidate_supports claims every problem.
// Right on rows of 4096 and 8192; the hidden odd sibling that eval validates beside each problem
// finds the elements past the last whole share unwritten.
#include <string.h>

#include "planted_rmsnorm.cuh"

__global__ void rows_in_whole_shares(const float* x, const float* w, float* y, long long n, float eps) {
  const long long share = n / planted::kThreads, first = threadIdx.x * share;
  const float* row = x + blockIdx.x * n;
  float v = 0.0f;
  for (long long i = first; i < first + share; ++i) v += row[i] * row[i];
  const float scale = rsqrtf(planted::block_sum(v) / float(n) + eps);
  for (long long i = first; i < first + share; ++i) y[blockIdx.x * n + i] = row[i] * scale * w[i];
}

NB_EXPORT int nb_candidate_supports(const nb_problem* p, char reason[NB_MESSAGE_BYTES]) {
  if (strstr(p->id, "/bf16") || strstr(p->id, "/fp16")) {
    snprintf(reason, NB_MESSAGE_BYTES, "float32 only");
    return 0;
  }
  return 1;
}

NB_EXPORT int nb_candidate_launch(const nb_problem* p, const nb_tensor* t, int32_t, void*, size_t, nb_stream s,
                                  char error[NB_MESSAGE_BYTES]) {
  const planted::RowsArgs a = planted::args_of(p, t);
  rows_in_whole_shares<<<unsigned(a.rows), planted::kThreads, 0, cudaStream_t(s)>>>(a.x, a.w, a.y, a.cols, a.eps);
  return planted::launch_status(error);
}
