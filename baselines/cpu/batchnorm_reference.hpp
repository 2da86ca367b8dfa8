#pragma once
// Float64 BatchNorm references (training forward and backward), PyTorch semantics: statistics
// per channel over N (and H, W); biased variance to normalize, unbiased for the running variance.
#include <vector>

#include "baselines/shapes/batchnorm_shape.hpp"

namespace nb::bn {

// Per-channel mean and biased variance of x in float64 (two passes).
struct ChannelMoments {
  std::vector<double> mean, var;
};
ChannelMoments channel_moments(const Shape& s, const float* x);

struct ForwardOutputs {
  double* y;
  double* save_mean;
  double* save_invstd;
  double* running_mean;  // the updated running statistics
  double* running_var;
};
void forward_reference(const Shape& s, const float* x, const float* gamma, const float* beta,
                       const float* running_mean, const float* running_var, const ForwardOutputs& out);

struct BackwardOutputs {
  double* dx;
  double* dgamma;
  double* dbeta;
};
// dx = invstd/M * gamma * (M*dy - sum(dy) - xhat*sum(dy*xhat)), xhat from the saved mean/invstd.
void backward_reference(const Shape& s, const float* x, const float* dy, const float* gamma, const float* save_mean,
                        const float* save_invstd, const BackwardOutputs& out);

}  // namespace nb::bn
