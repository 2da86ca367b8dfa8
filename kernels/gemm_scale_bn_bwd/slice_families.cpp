#include "kernels/gemm_scale_bn_bwd/slice_families.hpp"

#include "kernels/gemm_pipeline_common/linear_shape.hpp"
#include "kernels/gemm_pipeline_common/slice_runs.hpp"
#include "kernels/gemm_scale_bn_bwd/backward.hpp"

namespace nb::bn_backward {
namespace {

bool is_row_matrix(int tensor) { return tensor == kX || tensor == kDx; }     // (M, K)
bool is_batch_matrix(int tensor) { return tensor == kG || tensor == kDy; }   // (M, N)
bool is_weight_matrix(int tensor) { return tensor == kWeight || tensor == kDweight; }  // (N, K)

}  // namespace

SliceFamily row_family(const OpSpec& op, const Problem& p) {
  const linear::Shape s = linear::shape_of(p);
  const std::vector<TensorDecl> decls = op.tensors(p);
  SliceFamily f;
  f.unit = "row";
  f.count = s.m;
  f.problem = problem_with_slices(op, p, "m");  // two rows at least: the audit samples no fewer
  f.runs = [s, decls](int tensor, const std::vector<std::int64_t>& rows) {
    if (is_row_matrix(tensor)) return linear::stretch_per_slice(rows, s.k, s.k);
    if (is_batch_matrix(tensor)) return linear::stretch_per_slice(rows, s.n, s.n);
    return linear::whole(decls.at(std::size_t(tensor)).elements);
  };
  f.slice_of = [s](int tensor, std::int64_t element) -> std::int64_t {
    if (is_row_matrix(tensor)) return element / s.k;
    if (is_batch_matrix(tensor)) return element / s.n;
    return -1;
  };
  f.checked = {kDx};
  f.given = {kDbeta, kDgamma};
  return f;
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

}  // namespace nb::bn_backward
