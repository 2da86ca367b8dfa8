#pragma once
// cuDNN GroupNorm baseline through the backend graph API: one NORM_FORWARD operation in
// CUDNN_GROUP_NORM mode (training phase: statistics from x). The plan is built in prepare();
// a refusal (no engine, NOT_SUPPORTED) becomes nb::Unsupported with cuDNN's status string.
#include <memory>

#include "harness/variant.hpp"

namespace nb {

std::unique_ptr<Variant> make_groupnorm_cudnn_variant();

}  // namespace nb
