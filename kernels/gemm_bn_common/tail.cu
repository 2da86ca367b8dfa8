// The BatchNorm pipelines' last pass once the statistics are committed: normalize in place, or
// the row softmax of the normalized and scaled values.
#include "kernels/gemm_bn_common/pipeline.hpp"
#include "kernels/gemm_pipeline_common/post_gemm.hpp"

namespace nb::bn_pipeline {

void finish_in_place(const Args& a, const float* affine, cudaStream_t stream) {
  if (a.tail == BnTail::normalize)
    linear::launch_apply_columns(a.y, a.y, affine, a.m, a.n, stream);
  else
    linear::launch_softmax_rows(a.y, a.y, affine, a.m, a.n, stream);
}

}  // namespace nb::bn_pipeline
