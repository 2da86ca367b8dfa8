#pragma once
// How Eigen's audit cuts gemm_scale_bn_bwd's problem into slices its reference computes alone
// (docs/validation.md). Every gradient but dx lies over output columns: a column's dbeta, dgamma,
// ds, db and its row of dW sum over all M rows of that column alone (x whole). dx lies over rows,
// but each row's dh needs the whole batch's dbeta and dgamma, which the device reference gives
// (and the column family audits).
#include "harness/op_spec.hpp"

namespace nb::gemm_scale_bn_bwd {

// Slices are rows: the slice problem has m = the number of rows, each with its x, g and dy; W and
// the per-column vectors whole; dbeta and dgamma given. Checks dx. The family's count is the
// batch the given sums ran over.
SliceFamily row_family(const OpSpec& op, const Problem& p);

// Slices are output columns: the slice problem has n = the number of columns, each with its g and
// dy over all M rows, its row of W and its per-column values; x whole. Checks dW, db, ds, dgamma
// and dbeta.
SliceFamily column_family(const OpSpec& op, const Problem& p);

}  // namespace nb::gemm_scale_bn_bwd
