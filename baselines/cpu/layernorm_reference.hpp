#pragma once
// Float64 LayerNorm reference over the rows of x (M, N), contiguous (the LLM layout), as
// PyTorch's native_layer_norm: two-pass mean and biased variance of each row in double, then
// y = (x - mean) * rstd * w + b with rstd = 1 / sqrt(var + eps); the saved mean and rstd are
// outputs too. Plain IEEE double arithmetic, no special cases, as the other references: a NaN or
// Inf in a row makes its variance, its rstd and every y of the row NaN (its mean is NaN or the
// infinity's sign); the other rows are untouched.
#include <cstdint>

namespace nb::cpu {

struct LayerNormRowsOut {
  double* y;     // (m, n)
  double* mean;  // (m)
  double* rstd;  // (m)
};

void layernorm_rows_reference(const float* x, const float* w, const float* b, std::int64_t m, std::int64_t n,
                              double eps, const LayerNormRowsOut& out);

}  // namespace nb::cpu
