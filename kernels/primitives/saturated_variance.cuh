#pragma once
// The batch variance the running statistics and invstd take: a variance that overflowed fp32
// (+Inf from squares of finite values above 1.8e19, `wide` data, or NaN from Inf - Inf in a
// sum-of-squares form) saturates at FLT_MAX, so the running variance stays finite (and wrong,
// which the stress distribution's bound reports) instead of Inf or NaN, which would turn every
// later evaluation of the layer into beta or NaN. A finite mean means every input was finite, so
// such a variance can only be an overflow; with a non-finite mean (an Inf or NaN in the input) the
// variance stays what it is, as the reference's NaN there.
#include <cfloat>
#include <cmath>

namespace nb::dev {

__device__ __forceinline__ float saturated_variance(float mean, float var) {
  return isfinite(mean) && !(var <= FLT_MAX) ? FLT_MAX : var;
}

}  // namespace nb::dev
