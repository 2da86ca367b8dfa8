#pragma once
// The arithmetic every RMSNorm kernel shares: the reciprocal RMS, and the power-of-two rescaling
// that keeps sum(x^2) finite when |x| > ~1.8e19 (the `wide` distribution) without changing y.
#include <cuda_runtime.h>

#include <cfloat>

namespace nb::rms {

// 1 / sqrt(sum_sq / count + eps), with 1/count precomputed by the caller.
__device__ __forceinline__ float inv_rms(float sum_sq, float inv_count, float eps) {
  return rsqrtf(fmaf(sum_sq, inv_count, eps));
}

// True when a sum of squares left the finite range: overflow from huge finite values, or an
// Inf/NaN input (which the rescaled path below reproduces faithfully).
__device__ __forceinline__ bool sum_overflowed(float sum_sq) { return !(sum_sq <= FLT_MAX); }

// The power of two 2^-e with max_abs = f * 2^e, f in [0.5, 1): scaled values have |v| < 1, so
// their squares cannot overflow, and the scaling is exact. It only scales down: 1 when
// max_abs < 1, and when it is Inf or NaN, so those keep their IEEE results (y = 0 beside an
// Inf, NaN at it).
__device__ __forceinline__ float pow2_scale_for(float max_abs) {
  if (!(max_abs > 0.0f) || max_abs > FLT_MAX) return 1.0f;
  int e = 0;
  frexpf(max_abs, &e);
  return e > 0 ? ldexpf(1.0f, -e) : 1.0f;
}

// inv_rms of the original values, from the sum of squares of the values times `scale`:
// 1/sqrt(S/(n s^2) + eps) = s / sqrt(S/n + eps s^2).
__device__ __forceinline__ float scaled_inv_rms(float scaled_sum_sq, float inv_count, float eps, float scale) {
  return rsqrtf(fmaf(scaled_sum_sq, inv_count, eps * scale * scale)) * scale;
}

}  // namespace nb::rms
