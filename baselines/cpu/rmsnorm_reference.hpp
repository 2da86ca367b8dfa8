#pragma once
// Float64 references of the two RMSNorm ops. Plain IEEE double arithmetic: NaN and Inf propagate
// as they do there (an Inf in a group makes its mean square Inf, so its neighbours become 0 and
// the Inf itself NaN), with no special cases.
#include <cstdint>

namespace nb::cpu {

// y[n,c,s] = x[n,c,s] / sqrt(mean_c x[n,c,s]^2 + eps) for x of shape (n, c, plane), contiguous.
void rmsnorm_nchw_reference(const float* x, double* y, std::int64_t n, std::int64_t c, std::int64_t plane,
                            double eps);

// y[i,j] = x[i,j] / sqrt(mean_j x[i,j]^2 + eps) * w[j] for x of shape (m, n), contiguous.
void rmsnorm_rows_reference(const float* x, const float* w, double* y, std::int64_t m, std::int64_t n, double eps);

}  // namespace nb::cpu
