#pragma once
// cuDNN softmax baseline: cudnnSoftmaxForward, CUDNN_SOFTMAX_ACCURATE (subtracts the max),
// CUDNN_SOFTMAX_MODE_INSTANCE over an (M, N, 1, 1) NCHW descriptor: one softmax per row.
#include <memory>

#include "harness/variant.hpp"

namespace nb {

std::unique_ptr<Variant> make_softmax_cudnn_variant();

}  // namespace nb
