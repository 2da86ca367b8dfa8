#pragma once
// How much BatchNorm's sums amplify fp32 rounding where their terms cancel. The mean has
// condition sum|x| / |sum x| per channel; in the backward, dbeta = sum(dy) and dgamma =
// sum(dy*xhat) likewise, and dx is a difference of terms of size gamma*invstd*|dy|, so its
// condition is rms(terms) / rms(dx).
#include <vector>

#include "baselines/gpu/batchnorm_references.hpp"
#include "harness/tensors.hpp"
#include "kernels/batchnorm/shape.hpp"

namespace nb::bn {

struct GradientConditions {
  double dx = 1, dgamma = 1, dbeta = 1;  // max over channels, each in [1, kMaxCondition]
};

// max over channels of sum|x| / |sum x|: the condition of the batch mean; from x, or from the
// per-channel sums a reference program took.
double mean_condition(const Shape& s, const float* x);
double mean_condition(const std::vector<double>& sum, const std::vector<double>& abs_sum);

GradientConditions gradient_conditions(const Shape& s, const float* x, const float* dy, const float* gamma,
                                       const float* mean, const float* invstd, const double* dx_reference);
// The same from the per-channel sums (batchnorm_backward's, or the host's above).
GradientConditions gradient_conditions(const gpu::GradientSums& sums);

}  // namespace nb::bn
