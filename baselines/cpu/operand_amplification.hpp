#pragma once
// How much a GEMM pipeline instance amplifies an independent relative rounding u of every product
// x_ik w_jk (the GEMM's operands rounded to tf32) into its output's normwise error, per unit of u.
// Each element of g = x W^T carries e_ij ~ u sqrt(sum_k x_ik^2 w_jk^2), taken as
// u ||x_i|| ||w_j|| / sqrt(K); the normalization after the GEMM multiplies it by its Jacobian's
// diagonal (first order: the statistics average the errors out). docs/tolerance.md, "Operand
// rounding"; baselines/gpu/gemm_pipeline_references.cu computes the same on the executor.
#include <cstdint>
#include <vector>

#include "baselines/cpu/gemm_pipeline_reference.hpp"
#include "baselines/shapes/linear_shape.hpp"

namespace nb::linear {

// The cap of every amplification, as of the conditions (a degenerate output, norm 0, gets 0).
inline constexpr double kMaxAmplification = 1e5;

// ||x_i||^2 and ||w_j||^2 of the GEMM's operands, in double: what every amplification reads.
struct OperandNorms {
  std::vector<double> x, w;
};
OperandNorms operand_norms(const Shape& s, const float* x, const float* w);

// sqrt(errors / values), capped; 0 where there are no values or the ratio is not finite.
double relative_amplification(double errors, double values);

// BatchNorm over the columns then a per-column scale (gemm_scale_bn): y_ij gains
// gamma_j invstd_j s_j e_ij, so A^2 = (sum_i ||x_i||^2) (sum_j (gamma_j invstd_j s_j ||w_j||)^2) / K / ||y||^2.
// `scale` per column; non-finite terms left out.
double batchnorm_amplification(const Shape& s, const OperandNorms& norms, const float* gamma, const double* invstd,
                               const float* scale, const double* y);

// BatchNorm, a scalar scale, then a softmax over each row (gemm_bn_scale_softmax): the softmax
// passes y_ij times the error of its input, s gamma_j invstd_j e_ij, so each term is weighted by y_ij^2.
double softmax_amplification(const Shape& s, const OperandNorms& norms, const float* gamma, const double* invstd,
                             float scale, const double* y);

// BatchNorm's statistics. A tf32 conversion that truncates (tensor cores reading fp32 operands
// drop their low 13 bits) also scales every product by 1 - d, d up to u per operand: the
// normalized output removes a uniform scale of its input, the statistics keep it (measured 7.4e-4,
// 1.5 u, on the Hopper GEMM's save_invstd). Their amplifications carry that scale in full, plus
// the first-order spread of independent product errors e_ij ~ |s_j| ||x_i|| ||w_j|| / sqrt(K):
// dmean_j = sqrt(sum_i ||x_i||^2) |s_j| ||w_j|| / (M sqrt K), dvar_j = 2 sqrt(dev_j) |s_j| ||w_j|| / (M sqrt K)
// with dev_j = sum_i (h_ij - mean_j)^2 ||x_i||^2, dinvstd_j = invstd_j^3 dvar_j / 2.
inline constexpr double kTruncationScale = 2.0;  // the product scale's bound, in u

// The sums the statistics' amplifications combine, each over its finite terms.
struct BatchNormStatisticSums {
  double mean_errors = 0, means = 0;      // sum_j dmean_j^2, sum_j mean_j^2
  double invstd_errors = 0, invstds = 0;  // sum_j dinvstd_j^2, sum_j invstd_j^2
  double var_errors = 0, variances = 0;   // sum_j dvar_j^2, sum_j var_j^2 (biased, 1 / invstd^2 - eps)
  double running_means = 0, running_vars = 0;  // sum_j of the updated running statistics squared
};
struct BatchNormStatisticAmplifications {
  double save_mean = 0, save_invstd = 0, running_mean = 0, running_var = 0;
};
BatchNormStatisticAmplifications batchnorm_statistic_amplifications(const Shape& s, const BatchNormStatisticSums& sums);

// The sums on the host: h before the normalization (after a per-column scale, null for none),
// the statistics batchnorm_columns wrote.
BatchNormStatisticSums batchnorm_statistic_sums(const Shape& s, const OperandNorms& norms, const float* column_scale,
                                                const std::vector<double>& h, const BatchNormOutputs& stats);

// GroupNorm over (row, group) then the row minimum broadcast over N output columns
// (gemm_gn_min_bias): the minimum carries the error of the element that holds it,
// gamma_j* invstd_(r, group of j*) e_rj*, in each of the N outputs of its row. `invstd` is (M, G),
// `argmin` each row's first minimal column (-1 where the row's minimum is NaN); y is (N, M).
double group_minimum_amplification(const Shape& s, const OperandNorms& norms, const float* gamma,
                                   const double* invstd, const std::int64_t* argmin, const double* y);

}  // namespace nb::linear
