#pragma once
// How much each gradient of gemm_scale_bn_bwd amplifies fp32 rounding, as normwise ratios of the
// scale its rounding errors live at to the scale of the result (docs/tolerance.md):
// - a column sum T_c = sum_r term(r, c) (dbeta, dgamma, dscale, dbias): ||A|| / ||T|| with
//   A_c = sum_r |term(r, c)|;
// - a GEMM output (dx = dg W, dW = dg^T x): ||P|| / ||result||, P the norm that errors of size
//   |s gamma invstd dy| in each element of dg reach through the GEMM (P_ic^2 = sum_j t_ij^2 W_jc^2
//   for dx, P_jc^2 = sum_i t_ij^2 x_ic^2 for dW). Where W and x have no mean this is
//   rms(gamma invstd |dy|) / rms(dh); a column mean of x (offset, tiny_var) multiplies it by
//   rms(x) / spread(x), because dg's columns sum to ~0 and its errors do not.
// Normwise, never the largest per-column ratio: among thousands of columns one always sums to
// nearly zero. Non-finite values give 1 (their placement is checked instead).
#include "baselines/cpu/gemm_bwd_ratios.hpp"
#include "baselines/cpu/gemm_bwd_reference.hpp"

namespace nb::linear {

// The float64 gradients of the same inputs (backward_reference's outputs), read only.
struct BackwardGradients {
  const double *dx, *dweight, *dbias, *dscale, *dgamma, *dbeta;
};

BackwardConditions backward_conditions(const Shape& s, const BackwardInputs<float>& in, const BackwardGradients& reference);

}  // namespace nb::linear
