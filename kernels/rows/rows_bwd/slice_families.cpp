#include "kernels/rows/rows_bwd/slice_families.hpp"

#include <algorithm>

namespace nb::rows_bwd {
namespace {

// How a tensor lies over the columns of the (M, N) problem.
enum class ColumnLayout {
  matrix,      // (M, N): M elements per column, N apart (x, dy, dx)
  per_column,  // (N): one element per column (w, dw, db)
  shared,      // every column reads it whole (the saved mean and rstd)
};

ColumnLayout column_layout(const Layout& l, int tensor) {
  if (tensor == l.x || tensor == l.dy || tensor == l.dx) return ColumnLayout::matrix;
  if (tensor == l.mean || tensor == l.rstd) return ColumnLayout::shared;
  return ColumnLayout::per_column;
}

// Appends a run, joined to the last one where it continues it.
void append(std::vector<ElementRun>& runs, ElementRun run) {
  if (!runs.empty() && runs.back().begin + runs.back().count == run.begin) runs.back().count += run.count;
  else runs.push_back(run);
}

// The columns, in their order, as runs of adjacent ones.
std::vector<ElementRun> column_runs(const std::vector<std::int64_t>& columns) {
  std::vector<ElementRun> runs;
  for (std::int64_t j : columns) append(runs, {j, 1});
  return runs;
}

// A row-major (M, k) tensor of the k columns: row by row, each row's columns in their order.
std::vector<ElementRun> matrix_runs(const Shape& s, const std::vector<ElementRun>& columns) {
  std::vector<ElementRun> runs;
  for (std::int64_t r = 0; r < s.m; ++r)
    for (const ElementRun& c : columns) append(runs, {r * s.n + c.begin, c.count});
  return runs;
}

// The runs of one column tensor the audit lists a trial, at most: a column of M rows is M runs of
// one element (listed, then gathered, at ~30 ns a run on a host core), so tall problems audit
// fewer columns (two at least) and other ones each trial.
constexpr std::int64_t kColumnAuditRuns = std::int64_t(1) << 20;

}  // namespace

SliceFamily row_family(const OpSpec& op, const Problem& p, const Layout& l) {
  std::vector<RowLayout> layout(std::size_t(l.tensor_count()), RowLayout::shared);
  for (int t : {l.x, l.dy, l.dx}) layout[std::size_t(t)] = RowLayout::rows;
  for (int t : {l.mean, l.rstd})
    if (t >= 0) layout[std::size_t(t)] = RowLayout::per_row;
  return row_slices(op, p, "m", p.dim("n"), layout, {l.dx});
}

SliceFamily column_family(const OpSpec& op, const Problem& p, const Layout& l) {
  const Shape s = Shape::of(p);
  SliceFamily f;
  f.unit = "column";
  f.count = s.n;
  f.problem = [&op, p](const std::vector<std::int64_t>& columns) {
    Params params = p.params;
    params.set("n", double(columns.size()));
    return op.make_problem(params, p.dtype);
  };
  f.runs = [l, s](int tensor, const std::vector<std::int64_t>& columns) -> std::vector<ElementRun> {
    switch (column_layout(l, tensor)) {
      case ColumnLayout::matrix: return matrix_runs(s, column_runs(columns));
      case ColumnLayout::per_column: return column_runs(columns);
      case ColumnLayout::shared: return {{0, s.m}};
    }
    return {};
  };
  f.elements = [l, s](int tensor, std::int64_t columns) -> std::int64_t {
    switch (column_layout(l, tensor)) {
      case ColumnLayout::matrix: return s.m * columns;
      case ColumnLayout::per_column: return columns;
      case ColumnLayout::shared: return s.m;
    }
    return 0;
  };
  f.max_slices = std::max<std::int64_t>(2, kColumnAuditRuns / std::max<std::int64_t>(1, s.m));
  f.slice_of = [l, s](int tensor, std::int64_t element) -> std::int64_t {
    switch (column_layout(l, tensor)) {
      case ColumnLayout::matrix: return element % s.n;
      case ColumnLayout::per_column: return element;
      case ColumnLayout::shared: return -1;
    }
    return -1;
  };
  f.checked = {l.dw};
  if (l.layer()) f.checked.push_back(l.db);
  return f;
}

}  // namespace nb::rows_bwd
