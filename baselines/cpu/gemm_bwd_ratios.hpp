#pragma once
// The conditions of gemm_scale_bn_bwd's gradients, each the ratio of two norms: the scale its
// rounding errors live at over the result's own (gemm_bwd_conditions.hpp says which). The Eigen
// path (backward_conditions) and the reference program (baselines/gpu/gemm_bwd_references.cu) sum
// the norms each on its own side and finish them here alike.
#include <cstdint>
#include <vector>

namespace nb::linear {

// A column sum's ratio stops here: the bound then stays at fp32's tolerance of the terms' scale
// for any result down to 1e-12 of it (db, zero in exact arithmetic, sits at 1e-9..1e-6).
inline constexpr double kMaxColumnSumCondition = 1e12;
// A GEMM output's ratio stops where BatchNorm's conditions do.
inline constexpr double kMaxGemmCondition = 1e5;

struct BackwardConditions {
  double dx = 1, dweight = 1, dbias = 1, dscale = 1, dgamma = 1, dbeta = 1;
  double dh = 1;  // rms(gamma invstd |dy|) / rms(dh): dh's own cancellation (reported, not applied)
};

// The two norms of one ratio.
struct NormRatio {
  double scale = 0, value = 0;
};

struct BackwardNorms {
  NormRatio dx, dweight, dbias, dscale, dgamma, dbeta, dh;
};

// Each scale / value clamped to [1, cap]: kMaxColumnSumCondition for the four column sums,
// kMaxGemmCondition for dx, dW and dh. A zero value gives the cap (1 when its scale is zero too);
// a non-finite norm gives 1 (the placement of non-finite values is checked instead).
BackwardConditions conditions_of(const BackwardNorms& norms);

// The host's last steps of a norm, summed in index order on both paths: sqrt(sum v_i^2) and
// sum a_i b_i.
double norm(const double* v, std::int64_t n);
double dot(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace nb::linear
