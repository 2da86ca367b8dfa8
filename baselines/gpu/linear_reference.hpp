#pragma once
// nn.Linear in float64 for the GEMM pipelines' reference programs: g = x W^T + b from the fp32
// operands (for tf32 problems too: the reference is the exact product of what the kernel was
// given), by the executor's double GEMM (cuBLAS DGEMM on the device).
#include <cstdint>

#include "harness/validation/executor.hpp"

namespace nb::gpu {

// fp32 values widened to double, on the executor's side.
template <class Ex>
Scratch<double> widened(Ex& ex, const float* values, std::int64_t n);

// g (m, n) row-major = x (m, k) W^T (W of shape (n, k)) + b (n); b may be null.
template <class Ex>
Scratch<double> linear(Ex& ex, const float* x, const float* w, const float* b, std::int64_t m, std::int64_t n,
                       std::int64_t k);

}  // namespace nb::gpu
