#pragma once
// nn.Linear in float64 for the GEMM pipelines' reference programs: g = x W^T + b from the stored
// operands (for tf32 problems too: the reference is the exact product of what the kernel was
// given), by the executor's double GEMM (cuBLAS DGEMM on the device).
#include <cstdint>

#include "harness/stored_value.hpp"
#include "harness/validation/executor.hpp"

namespace nb::gpu {

// Stored values (fp32, or a bf16 problem's operands) widened to double, on the executor's side.
template <class Ex>
Scratch<double> widened(Ex& ex, stored::Tensor values, std::int64_t n);
template <class Ex>
Scratch<double> widened(Ex& ex, const float* values, std::int64_t n) {
  return widened(ex, stored::Tensor{values, DType::f32}, n);
}

// g (m, n) row-major = x (m, k) W^T (W of shape (n, k)) + b (n); b may be null.
template <class Ex>
Scratch<double> linear(Ex& ex, stored::Tensor x, stored::Tensor w, stored::Tensor b, std::int64_t m, std::int64_t n,
                       std::int64_t k);
template <class Ex>
Scratch<double> linear(Ex& ex, const float* x, const float* w, const float* b, std::int64_t m, std::int64_t n,
                       std::int64_t k) {
  return linear(ex, stored::Tensor{x, DType::f32}, stored::Tensor{w, DType::f32}, stored::Tensor{b, DType::f32}, m, n,
                k);
}

}  // namespace nb::gpu
