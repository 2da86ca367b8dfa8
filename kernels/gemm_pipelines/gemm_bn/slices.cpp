// How Eigen audits the BatchNorm pipelines' device references (harness/slices.hpp): by
// output columns, whose statistics run over all M rows; and, for the row softmax, by rows, with the
// device's column statistics given.
#include <algorithm>

#include "kernels/gemm_pipelines/gemm_bn/pipeline.hpp"
#include "kernels/gemm_pipelines/linear_shape.hpp"
#include "kernels/gemm_pipelines/slice_runs.hpp"

namespace nb::gemm_bn {
namespace {

// The problem of the sampled columns: n of them, x whole. Each column's statistics, running
// statistics and (the normalize tail) its y are computed as the full problem computes them; the
// softmax's y needs every column of its row.
SliceFamily column_slices(const OpSpec& op, const Problem& p, BnTail tail) {
  const linear::Shape s = linear::shape_of(p);
  const bool scalar_scale = tail == BnTail::scale_softmax;
  SliceFamily f;
  f.unit = "column";
  f.count = s.n;
  f.problem = problem_with_slices(op, p, "n");
  f.runs = [s, scalar_scale](int tensor, const std::vector<std::int64_t>& slices) {
    if (tensor == kX) return linear::whole(s.m * s.k);
    if (tensor == kWeight) return linear::stretch_per_slice(slices, s.k, s.k);
    if (tensor == kY) return linear::element_per_line(slices, s.m, s.n);
    if (tensor == kScale && scalar_scale) return linear::whole(1);
    return linear::stretch_per_slice(slices, 1, 1);  // one element per column
  };
  f.slice_of = [s, scalar_scale](int tensor, std::int64_t element) -> std::int64_t {
    if (tensor == kX || (tensor == kScale && scalar_scale)) return -1;
    if (tensor == kWeight) return element / s.k;
    if (tensor == kY) return element % s.n;
    return element;
  };
  f.checked = {kRunningMean, kRunningVar, kSaveMean, kSaveInvstd};
  if (tail == BnTail::normalize) f.checked.push_back(kY);
  return f;
}

// The rows of the softmax's y: a row needs the statistics of every column, which no subset of rows
// reproduces, so the device's saved mean and invstd are given (slice_reference) and the slice
// problem holds the sampled rows of x and y, W and the per-column vectors whole.
SliceFamily row_slices_given_statistics(const OpSpec& op, const Problem& p) {
  const linear::Shape s = linear::shape_of(p);
  std::vector<std::int64_t> row_width(std::size_t(std::max(kX, kY) + 1), 0);
  row_width[kX] = s.k;
  row_width[kY] = s.n;
  return linear::batch_rows(op, p, row_width, {kY}, {kSaveMean, kSaveInvstd});
}

}  // namespace

std::vector<SliceFamily> slice_families(const OpSpec& op, BnTail tail, const Problem& p) {
  if (tail == BnTail::normalize) return {column_slices(op, p, tail)};
  return {column_slices(op, p, tail), row_slices_given_statistics(op, p)};
}

}  // namespace nb::gemm_bn
