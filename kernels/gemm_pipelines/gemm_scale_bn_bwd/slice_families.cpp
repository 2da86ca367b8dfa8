#include "kernels/gemm_pipelines/gemm_scale_bn_bwd/slice_families.hpp"

#include "kernels/gemm_pipelines/linear_shape.hpp"
#include "kernels/gemm_pipelines/slice_runs.hpp"
#include "kernels/gemm_pipelines/gemm_scale_bn_bwd/backward.hpp"

namespace nb::gemm_scale_bn_bwd {
namespace {

bool is_row_matrix(int tensor) { return tensor == kX || tensor == kDx; }     // (M, K)
bool is_batch_matrix(int tensor) { return tensor == kG || tensor == kDy; }   // (M, N)
bool is_weight_matrix(int tensor) { return tensor == kWeight || tensor == kDweight; }  // (N, K)

}  // namespace

SliceFamily row_family(const OpSpec& op, const Problem& p) {
  const linear::Shape s = linear::shape_of(p);
  std::vector<std::int64_t> row_width(kTensorCount, 0);
  for (int t = 0; t < kTensorCount; ++t)
    row_width[std::size_t(t)] = is_row_matrix(t) ? s.k : is_batch_matrix(t) ? s.n : 0;
  return linear::batch_rows(op, p, row_width, {kDx}, {kDbeta, kDgamma});
}

SliceFamily column_family(const OpSpec& op, const Problem& p) {
  const linear::Shape s = linear::shape_of(p);
  SliceFamily f;
  f.unit = "column";
  f.count = s.n;
  f.problem = problem_with_slices(op, p, "n");
  f.runs = [s](int tensor, const std::vector<std::int64_t>& columns) {
    if (is_row_matrix(tensor)) return linear::whole(s.m * s.k);
    if (is_weight_matrix(tensor)) return linear::stretch_per_slice(columns, s.k, s.k);
    if (is_batch_matrix(tensor)) return linear::element_per_line(columns, s.m, s.n);
    return linear::stretch_per_slice(columns, 1, 1);  // one element per column
  };
  f.slice_of = [s](int tensor, std::int64_t element) -> std::int64_t {
    if (is_row_matrix(tensor)) return -1;
    if (is_weight_matrix(tensor)) return element / s.k;
    if (is_batch_matrix(tensor)) return element % s.n;
    return element;
  };
  f.checked = {kDweight, kDbias, kDscale, kDgamma, kDbeta};
  return f;
}

}  // namespace nb::gemm_scale_bn_bwd
