#pragma once
// How much each gradient of the row-layout normalization backwards amplifies fp32 rounding, as
// normwise ratios of the scale its rounding errors live at to the scale of the result
// (docs/tolerance.md, as for gemm_scale_bn_bwd's column sums):
// - dx = rstd (g - mean(g) - xhat mean(g xhat)): ||T|| / ||dx|| with
//   T = rstd (|g| + mean|g| + |xhat| mean|g xhat|), the size of the terms the difference is taken
//   of (mean|g| for LayerNorm only). About 1 on drawn data; large only where dx cancels to
//   nearly nothing, as at N = 1 (RMSNorm: dx = rstd g (1 - xhat^2), and xhat = +-1 up to the
//   rounding of the saved rstd).
// - the column sums dw = sum_r dy xhat and db = sum_r dy: ||A|| / ||T|| with A = sum_r |term|,
//   or, where larger, what the elementwise check needs: a column's error is about u A_j however
//   small T_j is, and the check holds it to (|T_j| + floor) times a bound `elementwise_over_normwise`
//   times the normwise one, so max_j A_j / (|T_j| + floor) / elementwise_over_normwise. It rules
//   where a column cancels among columns that do not (`wide` LayerNorm rows put xhat ~ +-8 in a
//   few columns of a few rows: one column of terms +-8.4 sums to 0.004 beside columns of 1).
// Normwise, never the largest per-column ratio alone: among thousands of columns one always sums
// to nearly zero, and the floor keeps that column from setting the bound. Only positions where both
// the scale and the reference are finite count (the harness checks the placement of the others).
#include <vector>

#include "baselines/cpu/norm_rows_bwd_reference.hpp"

namespace nb::cpu {

// Ratios stop here: the bound then stays at the tolerance of the terms' own scale for any result
// down to 1e-12 of it (as gemm_bwd_conditions.hpp's column sums).
inline constexpr double kMaxRowsBwdCondition = 1e12;

// How the harness compares (its Tolerance): the floor as a share of the reference's rms, and how
// much looser the elementwise bound is than the normwise one.
struct Comparison {
  double floor_fraction, elementwise_over_normwise;
};

// sqrt(scale_squared / value_squared) clamped to [1, kMaxRowsBwdCondition]; a zero result has 1
// when its scale is zero too, else the cap.
double normwise_ratio(double scale_squared, double value_squared);
// A column sum's condition from abs_sums[j] = sum_r |term(r, j)| and the reference T: ||A|| / ||T||,
// or max_j A_j / (|T_j| + floor) / elementwise_over_normwise where larger, over the columns where
// both are finite. (The reference programs compute the sums on their executor and finish here.)
double column_sum_condition(const std::vector<double>& abs_sums, const double* reference, const Comparison& c);

double input_gradient_condition(const RowsBwdInputs& in, const double* dx_reference);
double weight_gradient_condition(const RowsBwdInputs& in, const double* dw_reference, const Comparison& c);
double bias_gradient_condition(const RowsBwdInputs& in, const double* db_reference, const Comparison& c);

}  // namespace nb::cpu
