#pragma once
// How Eigen's audit cuts a row backward's problem into slices its reference computes alone
// (docs/validation.md). The backward reads the statistics the forward saved, so a set of rows or
// a set of columns is a problem of its own: the rows give dx exactly, the columns dw and db (each
// column sums over every row, with every row's saved mean and rstd).
#include "harness/op_spec.hpp"
#include "kernels/rows/rows_bwd/rows_bwd.hpp"

namespace nb::rows_bwd {

// Slices are rows: the slice problem has m = the number of rows, each with its x, dy, saved mean
// and rstd; w whole. Checks dx.
SliceFamily row_family(const OpSpec& op, const Problem& p, const Layout& layout);

// Slices are columns: the slice problem has n = the number of columns, each with its x and dy
// columns over all M rows and its w; mean and rstd whole. Checks dw (and db).
SliceFamily column_family(const OpSpec& op, const Problem& p, const Layout& layout);

}  // namespace nb::rows_bwd
