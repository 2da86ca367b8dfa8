#pragma once
// The problem every GEMM pipeline shares, as its float64 references state it and every kernel
// reads it: nn.Linear(K, N) on a batch of M rows, g = x W^T + b with x (M, K), W (N, K), b (N),
// followed by a normalization with eps (and the BatchNorm momentum). GroupNorm ops add G groups
// over the N channels. kernels/gemm_pipelines/linear_shape.hpp builds it from a problem.
#include <cstdint>

#include "harness/dtype.hpp"

namespace nb::linear {

struct Shape {
  std::int64_t m = 0, n = 0, k = 0;
  std::int64_t groups = 1;  // GroupNorm only
  double eps = 1e-5, momentum = 0.1;
  DType dtype = DType::f32;

  double unbias() const { return double(m) / double(m - 1); }  // BatchNorm's running var: M / (M - 1)
  std::int64_t group_size() const { return n / groups; }
  double gemm_flops() const { return 2.0 * double(m) * double(n) * double(k); }
  bool tf32() const { return dtype == DType::tf32; }
};

}  // namespace nb::linear
