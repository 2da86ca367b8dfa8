#pragma once
// Float64 reference programs of BatchNorm in training mode, forward and backward, over x of shape
// (n, c, hw) (the 1d layout has hw = 1): per-channel sums over its n*hw values by slice_sums, then
// one thread per element, as baselines/cpu/batchnorm_reference.cpp computes them. They also return
// the per-channel sums behind the ops' conditions (kernels/batchnorm/sum_conditions).
#include <cstdint>
#include <vector>

#include "baselines/shapes/batchnorm_shape.hpp"

namespace nb::gpu {

// Per channel: mean and biased variance (two passes), and the sum of |x| (the mean's condition).
struct ChannelSums {
  std::vector<double> mean, var, abs_sum, sum;
};

template <class Ex>
ChannelSums channel_sums(Ex& ex, const float* x, const bn::Shape& d);

// save_mean/save_invstd as float, what a forward pass saves (batchnorm_bwd's derived inputs).
template <class Ex>
void saved_statistics(Ex& ex, const float* x, const bn::Shape& d, float* save_mean, float* save_invstd);

struct BatchNormForward {
  const float *x, *gamma, *beta, *running_mean, *running_var;  // running statistics as drawn
  double *y, *save_mean, *save_invstd, *new_running_mean, *new_running_var;
};
// Returns the channel sums it computed (for the conditions).
template <class Ex>
ChannelSums batchnorm_forward(Ex& ex, const BatchNormForward& t, const bn::Shape& d);

// Per channel, what the backward's conditions are ratios of.
struct GradientSums {
  std::vector<double> sum_dy, abs_dy, sum_dyx, abs_dyx, term2, dx2;
};

struct BatchNormBackward {
  const float *x, *dy, *gamma, *save_mean, *save_invstd;
  double *dx, *dgamma, *dbeta;
};
template <class Ex>
GradientSums batchnorm_backward(Ex& ex, const BatchNormBackward& t, const bn::Shape& d);

}  // namespace nb::gpu
