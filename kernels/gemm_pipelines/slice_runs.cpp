#include "kernels/gemm_pipelines/slice_runs.hpp"

#include "harness/op_spec.hpp"
#include "kernels/gemm_pipelines/linear_shape.hpp"

namespace nb::linear {

std::vector<ElementRun> whole(std::int64_t elements) { return {{0, elements}}; }

std::vector<ElementRun> stretch_per_slice(const std::vector<std::int64_t>& slices, std::int64_t stride,
                                          std::int64_t length) {
  std::vector<ElementRun> runs;
  runs.reserve(slices.size());
  for (std::int64_t s : slices) runs.push_back({s * stride, length});
  return runs;
}

std::vector<ElementRun> element_per_line(const std::vector<std::int64_t>& slices, std::int64_t lines,
                                         std::int64_t line_stride) {
  std::vector<ElementRun> runs;
  runs.reserve(slices.size() * std::size_t(lines));
  for (std::int64_t line = 0; line < lines; ++line)
    for (std::int64_t s : slices) runs.push_back({line * line_stride + s, 1});
  return runs;
}

SliceFamily batch_rows(const OpSpec& op, const Problem& p, std::vector<std::int64_t> row_width, std::vector<int> checked,
                       std::vector<int> given) {
  const std::vector<TensorDecl> decls = op.tensors(p);
  row_width.resize(decls.size(), 0);
  SliceFamily f;
  f.unit = "row";
  f.count = shape_of(p).m;
  f.problem = problem_with_slices(op, p, "m");  // two rows at least: the audit samples no fewer
  f.runs = [row_width, decls](int tensor, const std::vector<std::int64_t>& rows) {
    const std::int64_t width = row_width.at(std::size_t(tensor));
    return width > 0 ? stretch_per_slice(rows, width, width) : whole(decls.at(std::size_t(tensor)).elements);
  };
  f.slice_of = [row_width](int tensor, std::int64_t element) -> std::int64_t {
    const std::int64_t width = row_width.at(std::size_t(tensor));
    return width > 0 ? element / width : -1;
  };
  f.checked = std::move(checked);
  f.given = std::move(given);
  return f;
}

}  // namespace nb::linear
