#pragma once
// How much a GEMM pipeline instance amplifies a relative rounding of its GEMM into its output's
// normwise error, per unit of the rounding's unit u. Two roundings, one per precision:
// - tf32 rounds every product x_ik w_jk (the operands): each element of g = x W^T carries
//   e_ij ~ u sqrt(sum_k x_ik^2 w_jk^2), taken as u ||x_i|| ||w_j|| / sqrt(K);
// - bf16 (autocast) rounds h = x W^T + b itself, the GEMM's output: e_ij ~ u |h_ij|.
// The normalization after the GEMM multiplies e by its Jacobian's diagonal (first order: the
// statistics average the errors out). docs/tolerance.md, "Operand rounding";
// baselines/gpu/gemm_pipeline_references.cu computes the same on the executor.
#include <cstdint>
#include <vector>

#include "baselines/cpu/gemm_pipeline_reference.hpp"
#include "baselines/shapes/linear_shape.hpp"
#include "harness/host_device.hpp"

namespace nb::linear {

// The cap of every amplification, as of the conditions (a degenerate output, norm 0, gets 0).
inline constexpr double kMaxAmplification = 1e5;

// ||x_i||^2 and ||w_j||^2 of the GEMM's operands, in double: what the products' errors read.
struct OperandNorms {
  std::vector<double> x, w;
};
OperandNorms operand_norms(const Shape& s, const float* x, const float* w);

// e_ij^2 per unit of u, of each element of the normalization's input (h after any per-column
// scale s), in one of the two models above. Raw pointers, so that a device functor copies it.
struct RoundingErrors {
  // The products' model: ||x_i||^2 (m), ||w_j||^2 (n), the per-column scale (null for none), K.
  const double* x2 = nullptr;
  const double* w2 = nullptr;
  const float* column_scale = nullptr;
  double k = 1;
  // The output's model: the normalization's input itself, (m, n) row-major; null for products.
  const double* values = nullptr;
  std::int64_t n = 0;

  NB_HD double squared(std::int64_t i, std::int64_t j) const {
    if (values) return values[i * n + j] * values[i * n + j];
    const double scale = column_scale ? double(column_scale[j]) : 1.0;
    return scale * scale * x2[i] * w2[j] / k;
  }
};
RoundingErrors product_errors(const Shape& s, const OperandNorms& norms, const float* column_scale);
RoundingErrors output_errors(const Shape& s, const std::vector<double>& h);

// sqrt(errors / values), capped; 0 where there are no values or the ratio is not finite.
double relative_amplification(double errors, double values);

// BatchNorm over the columns (gemm_scale_bn, its input h * s): y_ij gains gamma_j invstd_j e_ij,
// so A^2 = sum_ij (gamma_j invstd_j)^2 e_ij^2 / ||y||^2; non-finite terms left out.
double batchnorm_amplification(const Shape& s, const RoundingErrors& e, const float* gamma, const double* invstd,
                               const double* y);

// BatchNorm, a scalar scale, then a softmax over each row (gemm_bn_scale_softmax): the softmax
// passes y_ij times the error of its input, s gamma_j invstd_j e_ij, so each term is weighted by
// y_ij^2. `normalized` (null for none): BatchNorm's output z, where autocast rounds it to bf16
// too (BatchNorm writes its input's type), adding y_ij^2 s^2 z_ij^2.
double softmax_amplification(const Shape& s, const RoundingErrors& e, const float* gamma, const double* invstd,
                             float scale, const double* y, const double* normalized);

// BatchNorm's statistics. A conversion that truncates also scales every value it rounds by 1 - d,
// d up to 2u: tf32 operands on tensor cores (their low 13 bits dropped; measured 7.4e-4, 1.5 u, on
// the Hopper GEMM's save_invstd), and a bf16 h as cuBLASLt writes it on some shapes (measured on
// the H100: save_mean 1.9x over the bound of a rounding to nearest at 300 x 257 x 260, whose
// emulation stays at 0.57; a truncating emulation at 2.6-5.9x). The normalized output removes a
// uniform scale of its input, the statistics keep it: their amplifications carry it in full, plus
// the first-order spread of the independent errors e_ij:
// dmean_j = sqrt(sum_i e_ij^2) / M, dvar_j = 2 sqrt(dev_j) / M with
// dev_j = sum_i (h_ij - mean_j)^2 e_ij^2, dinvstd_j = invstd_j^3 dvar_j / 2.
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

// The sums on the host: h before the normalization (after a per-column scale), the statistics
// batchnorm_columns wrote.
BatchNormStatisticSums batchnorm_statistic_sums(const Shape& s, const RoundingErrors& e, const std::vector<double>& h,
                                                const BatchNormOutputs& stats);

// GroupNorm over (row, group) then the row minimum broadcast over N output columns
// (gemm_gn_min_bias): the minimum carries the error of the element that holds it,
// gamma_j* invstd_(r, group of j*) e_rj*, in each of the N outputs of its row. `invstd` is (M, G),
// `argmin` each row's first minimal column (-1 where the row's minimum is NaN); y is (N, M).
double group_minimum_amplification(const Shape& s, const RoundingErrors& e, const float* gamma,
                                   const double* invstd, const std::int64_t* argmin, const double* y);

}  // namespace nb::linear
