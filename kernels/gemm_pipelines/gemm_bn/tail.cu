// The BatchNorm pipelines' last pass once the statistics are committed: normalize in place, or
// the row softmax of the normalized and scaled values.
#include "kernels/gemm_pipelines/gemm_bn/pipeline.hpp"
#include "kernels/gemm_pipelines/post_gemm.hpp"

namespace nb::gemm_bn {

void finish_in_place(const Args& a, const float* affine, cudaStream_t stream) {
  if (a.tail == BnTail::normalize)
    linear::launch_apply_columns(a.y, a.y, affine, a.m, a.n, stream);
  else
    linear::launch_softmax_rows(a.y, a.y, affine, a.m, a.n, stream);
}

}  // namespace nb::gemm_bn
