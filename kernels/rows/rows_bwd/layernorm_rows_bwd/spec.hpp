#pragma once
// layernorm_rows_bwd: the LayerNorm backward in the LLM layout, x of shape (M, N), from the mean
// and rstd the forward saved: dx = rstd * (g - mean_j(g) - xhat * mean_j(g * xhat)),
// dw = sum_rows dy * xhat, db = sum_rows dy, with xhat = (x - mean) * rstd and g = dy * w. Spec and
// variants live in kernels/rows/rows_bwd/, shared with rmsnorm_rows_bwd.
#include <memory>
#include <vector>

#include "kernels/rows/rows_bwd/rows_bwd.hpp"

namespace nb::layernorm_rows_bwd {

enum Tensor : int { X, W, DY, MEAN, RSTD, DX, DW, DB };

inline constexpr rows_bwd::Layout kLayout{rows_bwd::Norm::layer, X, W, DY, MEAN, RSTD, DX, DW, DB};

}  // namespace nb::layernorm_rows_bwd
