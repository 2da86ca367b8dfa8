#pragma once
// Float64 references for the GEMM pipelines: nn.Linear (an Eigen GEMM in double, row blocks on
// every core), and the normalizations that follow it, in PyTorch's training-mode semantics.
#include <vector>

#include "baselines/shapes/linear_shape.hpp"

namespace nb::linear {

// g = x W^T + b in float64, (M, N) row-major. The inputs are the fp32 values (for tf32 problems
// too: the reference is the exact product of what the kernel was given).
std::vector<double> linear_reference(const Shape& s, const float* x, const float* w, const float* b);

// BatchNorm1d over the M rows of h (M, N) with batch statistics, in place: h becomes y. Writes the
// saved mean/invstd and the updated running statistics (unbiased variance, momentum).
struct BatchNormOutputs {
  double* save_mean;
  double* save_invstd;
  double* running_mean;
  double* running_var;
};
void batchnorm_columns(const Shape& s, std::vector<double>& h, const float* gamma, const float* beta,
                       const float* running_mean, const float* running_var, const BatchNormOutputs& out);
// Its last step alone, with statistics given: h = (h - mean) * invstd * gamma + beta per column.
void normalize_columns(const Shape& s, std::vector<double>& h, const double* mean, const double* invstd,
                       const float* gamma, const float* beta);

// GroupNorm of each row of g (M, N) over G groups of N/G channels, per-channel affine, in place.
// Returns the largest sqrt(1 + (mean * invstd)^2) over the groups (the condition factor); writes
// each (row, group)'s invstd to `invstd` (M, G) where given.
double groupnorm_rows(const Shape& s, std::vector<double>& g, const float* gamma, const float* beta,
                      double* invstd = nullptr);

// Softmax over each row of z (M, N), in place.
void softmax_rows(const Shape& s, std::vector<double>& z);

// max over columns of sqrt(1 + (mean_c * invstd_c)^2): how far an error of one ulp of |h| is
// amplified relative to the normalized output's scale (docs/tolerance.md).
double column_condition(const double* save_mean, const double* save_invstd, std::int64_t n);

}  // namespace nb::linear
