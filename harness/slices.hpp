#pragma once
// How Eigen audits a reference computed on the device (docs/validation.md): an op cuts its problem
// into slices that its own Eigen reference can compute alone (rows, channels, groups, columns),
// and names the smaller problem a set of slices forms. The audit recomputes a sample of slices
// from the same inputs and compares them with the device's values.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "harness/problem.hpp"

namespace nb {

// Elements [begin, begin + count) of a tensor.
struct ElementRun {
  std::int64_t begin = 0, count = 0;
};

struct SliceFamily {
  std::string unit;        // "row", "channel", "group", "column"
  std::int64_t count = 0;  // slices in the problem
  // The problem (of the same op) that these slices form, in this order.
  std::function<Problem(const std::vector<std::int64_t>& slices)> problem;
  // The elements of the full problem's tensor `tensor` that make the slice problem's tensor of the
  // same index, in its element order. A tensor every slice shares (a weight) is one whole run.
  std::function<std::vector<ElementRun>(int tensor, const std::vector<std::int64_t>& slices)> runs;
  // Which slice holds element `element` of input `tensor` (-1: all of them, a shared tensor): the
  // audit always takes the slices where `special` planted NaN/Inf.
  std::function<std::int64_t(int tensor, std::int64_t element)> slice_of;
  // The outputs the slice problem computes exactly as the full one does (a row's y, not a column
  // sum over the sampled rows alone).
  std::vector<int> checked;
  // Outputs of the device reference the slices need whole (a column statistic every row uses):
  // OpSpec::slice_reference receives them. Empty for most families.
  std::vector<int> given = {};
  // At most this many slices a trial (0: the audit budget's cap alone). A column of a tall row-major
  // tensor is a run of one element a row, so a family of such slices caps them to bound the runs the
  // audit lists and gathers.
  std::int64_t max_slices = 0;
  // The elements of tensor `tensor` that `slices` slices make, where the family counts them without
  // listing runs (empty: counted from `runs` of the first slices).
  std::function<std::int64_t(int tensor, std::int64_t slices)> elements = {};
};

// How a tensor of a row-layout op lies over its rows (row_slices).
enum class RowLayout {
  rows,     // (m, n): a row of n elements per slice
  per_row,  // (m): one element per row (a row's saved mean)
  shared,   // every row reads it whole (a weight)
};

class OpSpec;

// The family whose slices are the rows of an op over (m, n) tensors: the slice problem is `problem`
// with its row count parameter (`row_param`) set to the number of slices; layout[t] says how
// tensor t lies over the rows; `checked` as in SliceFamily.
SliceFamily row_slices(const OpSpec& op, const Problem& problem, const std::string& row_param, std::int64_t n,
                       const std::vector<RowLayout>& layout, std::vector<int> checked);

// SliceFamily::problem for slices along one dimension: `problem` with `dim` set to the number of
// slices.
std::function<Problem(const std::vector<std::int64_t>&)> problem_with_slices(const OpSpec& op, const Problem& problem,
                                                                              const std::string& dim);

// Total elements of a set of runs.
std::int64_t run_elements(const std::vector<ElementRun>& runs);

// Runs for a strided set: `count` runs of `length` elements starting at first, first + stride, ...
std::vector<ElementRun> strided_runs(std::int64_t first, std::int64_t stride, std::int64_t count, std::int64_t length);

}  // namespace nb
