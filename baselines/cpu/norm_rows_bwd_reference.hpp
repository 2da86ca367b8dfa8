#pragma once
// Float64 references of the row-layout normalization backwards (LLM layout: x of shape (M, N),
// each row normalized over its N contiguous values), as PyTorch's autograd computes them from the
// statistics the forward saved:
//   LayerNorm: xhat = (x - mean) * rstd, g = dy * w,
//              dx = rstd * (g - mean_j(g) - xhat * mean_j(g * xhat)), dw = sum_rows dy * xhat,
//              db = sum_rows dy;
//   RMSNorm:   xhat = x * rstd, dx = rstd * (g - xhat * mean_j(g * xhat)), dw = sum_rows dy * xhat.
// Plain IEEE double arithmetic: NaN and Inf propagate as they do there.
#include <cstdint>
#include <vector>

namespace nb::cpu {

// The statistics a forward pass saves, in float64 from the given x: per row the mean (LayerNorm
// only; two passes, biased variance) and rstd = 1 / sqrt(var + eps), or 1 / sqrt(mean(x^2) + eps)
// for RMSNorm.
struct RowStatistics {
  std::vector<double> mean, rstd;
};
RowStatistics layernorm_row_statistics(const float* x, std::int64_t m, std::int64_t n, double eps);
RowStatistics rmsnorm_row_statistics(const float* x, std::int64_t m, std::int64_t n, double eps);

struct RowsBwdInputs {
  const float* x;     // (m, n)
  const float* w;     // (n)
  const float* dy;    // (m, n)
  const float* mean;  // (m); null for RMSNorm
  const float* rstd;  // (m)
  std::int64_t m, n;
};

struct RowsBwdOutputs {
  double* dx;  // (m, n)
  double* dw;  // (n)
  double* db;  // (n); null for RMSNorm
};

// LayerNorm when in.mean is given, RMSNorm when it is null.
void norm_rows_backward_reference(const RowsBwdInputs& in, const RowsBwdOutputs& out);

}  // namespace nb::cpu
