#pragma once
// Float64 reference programs of the ops that reduce each row (or each position over channels) of a
// contiguous tensor, written for obviousness: per-row statistics by slice_reduce (harness), then one
// thread per output. The same formulas, in the same order of operations, as baselines/cpu/, whose
// Eigen references audit them (docs/validation.md). Each runs on either executor.
#include <cstdint>

#include "harness/stored_value.hpp"

namespace nb::gpu {

// y[i,j] = x[i,j] / sqrt(mean_j x[i,j]^2 + eps) * w[j], x of shape (m, n).
template <class Ex>
void rmsnorm_rows(Ex& ex, stored::Tensor x, stored::Tensor w, double* y, std::int64_t m, std::int64_t n, double eps);

// y[b,c,s] = x[b,c,s] / sqrt(mean_c x[b,c,s]^2 + eps), x of shape (n, c, plane).
template <class Ex>
void rmsnorm_nchw(Ex& ex, stored::Tensor x, double* y, std::int64_t n, std::int64_t c, std::int64_t plane, double eps);

// Two-pass mean and biased variance per row, y = (x - mean) * rstd * w + b, the saved mean and rstd.
// Returns the largest sqrt(mean(x^2) / (var + eps)) over the rows where it is finite, at least 1
// (cpu::groupnorm_condition of rows).
template <class Ex>
double layernorm_rows(Ex& ex, stored::Tensor x, stored::Tensor w, stored::Tensor b, double* y, double* mean,
                      double* rstd, std::int64_t m, std::int64_t n, double eps);

// Softmax of each row, the row max subtracted.
template <class Ex>
void softmax_rows(Ex& ex, stored::Tensor x, double* y, std::int64_t m, std::int64_t n);

// The minimum of each row, NaN if the row holds one.
template <class Ex>
void min_rows(Ex& ex, stored::Tensor x, double* y, std::int64_t m, std::int64_t n);

}  // namespace nb::gpu
