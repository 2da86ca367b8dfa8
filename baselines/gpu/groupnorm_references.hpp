#pragma once
// Float64 reference program of GroupNorm over x of shape (n, c, hw): each (image, group) is a
// contiguous block of c/g channels; two-pass mean and biased variance per block by slice_sums, then
// y = (x - mean) * invstd * gamma[c] + beta[c] one thread per element, as
// baselines/cpu/groupnorm_reference.cpp computes it.
#include <cstdint>

namespace nb::gpu {

struct GroupNormDims {
  std::int64_t n, c, hw, g;
  double eps;
};

// Returns the largest sqrt(mean(x^2) / (var + eps)) over the blocks where it is finite, at least 1
// (cpu::groupnorm_condition).
template <class Ex>
double groupnorm(Ex& ex, const float* x, const float* gamma, const float* beta, double* y, const GroupNormDims& d);

}  // namespace nb::gpu
