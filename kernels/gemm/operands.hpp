#pragma once
// The GEMM every pipeline op starts with, nn.Linear's g = x W^T: A is x (M, K) and B is W (N, K),
// both row-major with K contiguous, C is (M, N). Plain data that host and device code share.
namespace nb::gemm {

struct Operands {
  const float* a;  // (m, k), row-major
  const float* b;  // (n, k), row-major
  int m, n, k;
};

}  // namespace nb::gemm
