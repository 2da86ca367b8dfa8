#pragma once
// The BatchNorm problem as its float64 references state it, and as every kernel reads it:
// statistics per channel c over N (1d, (N,C)) or over N,H,W (2d, contiguous NCHW). The 1d layout
// is the 2d one with H = W = 1. kernels/batchnorm/shape.hpp builds it from a problem.
#include <cstdint>

namespace nb::bn {

struct Shape {
  std::int64_t n = 0, c = 0, hw = 1;
  double eps = 1e-5, momentum = 0.1;

  std::int64_t count() const { return n * hw; }  // M: values per channel
  std::int64_t elements() const { return n * c * hw; }
  bool is_1d() const { return hw == 1; }
  double unbias() const { return double(count()) / double(count() - 1); }  // M / (M - 1)
};

}  // namespace nb::bn
