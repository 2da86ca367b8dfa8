#pragma once
// Float64 GroupNorm forward reference: two-pass mean and biased variance per (n, group), then
// y = (x - mean) * invstd * gamma[c] + beta[c]. NaN/Inf propagate as IEEE double does.
#include <cstdint>

namespace nb::cpu {

struct GroupNormDims {
  std::int64_t n, c, hw, g;
  double eps;
};

void groupnorm_reference(const GroupNormDims& d, const float* x, const float* gamma, const float* beta, double* y);

// How much fp32 rounding the instance amplifies: the largest rms(x) / sqrt(var + eps) over the
// groups with finite statistics (x - mean in fp32 carries an error of ~eps * |x|; y divides it
// by the standard deviation). 1 for an all-non-finite input.
double groupnorm_condition(const GroupNormDims& d, const float* x);

}  // namespace nb::cpu
