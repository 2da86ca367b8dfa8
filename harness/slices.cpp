#include "harness/slices.hpp"

#include "harness/op_spec.hpp"

namespace nb {

std::int64_t run_elements(const std::vector<ElementRun>& runs) {
  std::int64_t n = 0;
  for (const ElementRun& r : runs) n += r.count;
  return n;
}

std::vector<ElementRun> strided_runs(std::int64_t first, std::int64_t stride, std::int64_t count, std::int64_t length) {
  std::vector<ElementRun> runs;
  runs.reserve(static_cast<std::size_t>(count));
  for (std::int64_t k = 0; k < count; ++k) runs.push_back({first + k * stride, length});
  return runs;
}

std::function<Problem(const std::vector<std::int64_t>&)> problem_with_slices(const OpSpec& op, const Problem& problem,
                                                                              const std::string& dim) {
  return [&op, problem, dim](const std::vector<std::int64_t>& slices) {
    Params params = problem.params;
    params.set(dim, double(slices.size()));
    return op.make_problem(params, problem.dtype);
  };
}

SliceFamily row_slices(const OpSpec& op, const Problem& problem, const std::string& row_param, std::int64_t n,
                       const std::vector<RowLayout>& layout, std::vector<int> checked) {
  SliceFamily f;
  f.unit = "row";
  f.count = problem.dim(row_param);
  const std::vector<TensorDecl> decls = op.tensors(problem);
  f.problem = problem_with_slices(op, problem, row_param);
  f.runs = [layout, n, decls](int tensor, const std::vector<std::int64_t>& slices) {
    std::vector<ElementRun> runs;
    switch (layout.at(std::size_t(tensor))) {
      case RowLayout::rows:
        for (std::int64_t r : slices) runs.push_back({r * n, n});
        break;
      case RowLayout::per_row:
        for (std::int64_t r : slices) runs.push_back({r, 1});
        break;
      case RowLayout::shared: runs.push_back({0, decls.at(std::size_t(tensor)).elements}); break;
    }
    return runs;
  };
  f.slice_of = [layout, n](int tensor, std::int64_t element) -> std::int64_t {
    switch (layout.at(std::size_t(tensor))) {
      case RowLayout::rows: return element / n;
      case RowLayout::per_row: return element;
      case RowLayout::shared: return -1;
    }
    return -1;
  };
  f.checked = std::move(checked);
  return f;
}

}  // namespace nb
