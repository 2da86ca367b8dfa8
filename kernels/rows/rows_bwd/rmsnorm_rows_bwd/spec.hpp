#pragma once
// rmsnorm_rows_bwd: the RMSNorm backward in the LLM layout, x of shape (M, N), from the rstd the
// forward saved: dx = rstd * (g - xhat * mean_j(g * xhat)), dw = sum_rows dy * xhat, with
// xhat = x * rstd and g = dy * w. Spec and variants live in kernels/rows/rows_bwd/, shared with
// layernorm_rows_bwd.
#include <memory>
#include <vector>

#include "kernels/rows/rows_bwd/rows_bwd.hpp"

namespace nb::rmsnorm_rows_bwd {

enum Tensor : int { X, W, DY, RSTD, DX, DW };

inline constexpr rows_bwd::Layout kLayout{rows_bwd::Norm::rms, X, W, DY, -1, RSTD, DX, DW, -1};

}  // namespace nb::rmsnorm_rows_bwd
