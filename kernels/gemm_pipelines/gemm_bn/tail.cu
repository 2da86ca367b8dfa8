// The BatchNorm pipelines' last pass once the statistics are committed: normalize in place, or
// the row softmax of the normalized and scaled values; and before it, for the variants whose GEMM
// epilogue took per-tile column statistics, their merge and commit.
#include "kernels/gemm_pipelines/gemm_bn/pipeline.hpp"
#include "kernels/gemm_pipelines/post_gemm.hpp"

namespace nb::gemm_bn {

void finish_in_place(const Args& a, const float* affine, cudaStream_t stream) {
  if (a.tail == BnTail::normalize)
    linear::launch_apply_columns(a.y, a.y, affine, a.m, a.n, stream);
  else
    linear::launch_softmax_rows(a.y, a.y, affine, a.m, a.n, stream);
}

std::size_t column_stats_workspace(int tiles_m, int n) {
  return std::size_t(tiles_m) * std::size_t(n) * sizeof(linear::dev::Welford) + 2 * std::size_t(n) * sizeof(float) + 16;
}

void finish_from_column_partials(const Args& a, void* workspace, int tiles_m, cudaStream_t stream) {
  const auto* partials = static_cast<const linear::dev::Welford*>(workspace);
  float* affine = reinterpret_cast<float*>(static_cast<linear::dev::Welford*>(workspace) + std::size_t(tiles_m) * a.n);
  linear::launch_commit_columns(partials, tiles_m, a.bn, nullptr, a.post_scale, affine, a.n, stream);
  finish_in_place(a, affine, stream);
}

}  // namespace nb::gemm_bn
