#pragma once
// The GEMM every pipeline op starts with, nn.Linear's g = x W^T: A is x (M, K) and B is W (N, K),
// both row-major with K contiguous, C is (M, N). Plain data that host and device code share. The
// operands are fp32 (read as fp32 or tf32) or, for the Hopper GEMM's bf16 inputs, bf16.
#include <cuda_bf16.h>

namespace nb::gemm {

template <class Element>
struct OperandsOf {
  const Element* a;  // (m, k), row-major
  const Element* b;  // (n, k), row-major
  int m, n, k;
};

using Operands = OperandsOf<float>;
using Bf16Operands = OperandsOf<__nv_bfloat16>;

}  // namespace nb::gemm
