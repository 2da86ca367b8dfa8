#pragma once
// Float64 reference programs of the row-layout normalization backwards (LLM layout: x of shape
// (M, N), each row normalized over its N contiguous values), written for obviousness with the
// formulas and order of operations of baselines/cpu/norm_rows_bwd_reference.cpp, whose Eigen
// reference audits them: per-row and per-column sums by slice_sums, then one thread per output.
// LayerNorm when a mean is given, RMSNorm when it is null. Each runs on either executor.
#include <cstdint>

#include "baselines/cpu/norm_rows_bwd_conditions.hpp"
#include "harness/stored_value.hpp"

namespace nb::gpu {

// The backward's inputs as a program reads them (cpu::RowsBwdInputs on the executor's side).
struct RowsBwdTensors {
  stored::Tensor x;    // (m, n)
  stored::Tensor w;    // (n)
  stored::Tensor dy;   // (m, n)
  const float* mean;   // (m); null for RMSNorm
  const float* rstd;   // (m)
  std::int64_t m, n;
};

// The statistics a forward pass saves, in float64 and then rounded to fp32, as
// cpu::layernorm_row_statistics (mean non-null: two-pass mean, biased variance) and
// cpu::rmsnorm_row_statistics (mean null) compute them: rstd = 1 / sqrt(var + eps), or
// 1 / sqrt(mean(x^2) + eps).
template <class Ex>
void norm_row_statistics(Ex& ex, stored::Tensor x, float* mean, float* rstd, std::int64_t m, std::int64_t n,
                         double eps);

// dx (m, n), dw (n) and, for LayerNorm, db (n; null for RMSNorm), as cpu::norm_rows_backward_reference.
template <class Ex>
void norm_rows_backward(Ex& ex, RowsBwdTensors in, double* dx, double* dw, double* db);

// The conditions of cpu::input_gradient_condition, weight_gradient_condition and
// bias_gradient_condition, from the inputs and this program's references (db's is 1 without db).
struct RowsBwdConditions {
  double dx = 1, dw = 1, db = 1;
};
template <class Ex>
RowsBwdConditions norm_rows_backward_conditions(Ex& ex, RowsBwdTensors in, const double* dx, const double* dw,
                                                const double* db, const cpu::Comparison& comparison);

}  // namespace nb::gpu
