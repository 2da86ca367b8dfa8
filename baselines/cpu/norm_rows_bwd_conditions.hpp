#pragma once
// How much each gradient of the row-layout normalization backwards amplifies fp32 rounding, as
// normwise ratios of the scale its rounding errors live at to the scale of the result
// (docs/tolerance.md, as for gemm_scale_bn_bwd's column sums):
// - dx = rstd (g - mean(g) - xhat mean(g xhat)): ||T|| / ||dx|| with
//   T = rstd (|g| + mean|g| + |xhat| mean|g xhat|), the size of the terms the difference is taken
//   of (mean|g| for LayerNorm only). About 1 on drawn data; large only where dx cancels to
//   nearly nothing, as at N = 1 (RMSNorm: dx = rstd g (1 - xhat^2), and xhat = +-1 up to the
//   rounding of the saved rstd).
// - the column sums dw = sum_r dy xhat and db = sum_r dy: ||A|| / ||T|| with A = sum_r |term|.
// Normwise, never the largest per-column ratio: among thousands of columns one always sums to
// nearly zero. Only positions where both the scale and the reference are finite count (the
// harness checks the placement of the others).
#include "baselines/cpu/norm_rows_bwd_reference.hpp"

namespace nb::cpu {

// Ratios stop here: the bound then stays at the tolerance of the terms' own scale for any result
// down to 1e-12 of it (as gemm_bwd_conditions.hpp's column sums).
inline constexpr double kMaxRowsBwdCondition = 1e12;

double input_gradient_condition(const RowsBwdInputs& in, const double* dx_reference);
double weight_gradient_condition(const RowsBwdInputs& in, const double* dw_reference);
double bias_gradient_condition(const RowsBwdInputs& in, const double* db_reference);

}  // namespace nb::cpu
