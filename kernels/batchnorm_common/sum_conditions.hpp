#pragma once
// How much BatchNorm's sums amplify fp32 rounding where their terms cancel. The mean has
// condition sum|x| / |sum x| per channel; in the backward, dbeta = sum(dy) and dgamma =
// sum(dy*xhat) likewise, and dx is a difference of terms of size gamma*invstd*|dy|, so its
// condition is rms(terms) / rms(dx).
#include "harness/tensors.hpp"
#include "kernels/batchnorm_common/shape.hpp"

namespace nb::bn {

struct GradientConditions {
  double dx = 1, dgamma = 1, dbeta = 1;  // max over channels, each in [1, kMaxCondition]
};

// max over channels of sum|x| / |sum x|: the condition of the batch mean.
double mean_condition(const Shape& s, const float* x);

GradientConditions gradient_conditions(const Shape& s, const float* x, const float* dy, const float* gamma,
                                       const float* mean, const float* invstd, const double* dx_reference);

}  // namespace nb::bn
