#pragma once
// How much the backward's outputs amplify fp32 rounding: each is a sum whose terms can cancel.
// dbeta = sum(dy) and dgamma = sum(dy*xhat) have condition sum|t| / |sum t| per channel; dx is a
// difference of terms of size gamma*invstd*|dy|, so its condition is rms(terms) / rms(dx).
#include "harness/tensors.hpp"
#include "kernels/batchnorm_common/shape.hpp"

namespace nb::bn {

struct GradientConditions {
  double dx = 1, dgamma = 1, dbeta = 1;  // max over channels, each in [1, kMaxCondition]
};

GradientConditions gradient_conditions(const Shape& s, const float* x, const float* dy, const float* gamma,
                                       const float* mean, const float* invstd, const double* dx_reference);

}  // namespace nb::bn
