#pragma once
// cuDNN BatchNorm baselines (legacy API): ForwardTraining and Backward, SPATIAL for the 2d NCHW
// layout and PER_ACTIVATION for the 1d (N, C) one. Timed like the kernels, validated like them.
#include <memory>

#include "harness/variant.hpp"

namespace nb::bn {

std::unique_ptr<Variant> make_cudnn_forward_variant();
std::unique_ptr<Variant> make_cudnn_backward_variant();

}  // namespace nb::bn
