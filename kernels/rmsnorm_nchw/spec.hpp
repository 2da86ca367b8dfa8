#pragma once
// rmsnorm_nchw: y = x / sqrt(mean(x^2 over dim 1) + eps) for x of shape (N, C, H, W),
// contiguous. Each (n, h, w) position reduces over its C channels, H*W floats apart.
#include <cstdint>
#include <memory>
#include <vector>

#include "harness/problem.hpp"
#include "harness/variant.hpp"

namespace nb::rmsnorm_nchw {

enum Tensor : int { X, Y };

struct Shape {
  std::int64_t n = 0, c = 0, h = 0, w = 0;
  float eps = 0;

  static Shape of(const Problem& p);
  std::int64_t plane() const { return h * w; }          // positions per image; the channel stride
  std::int64_t positions() const { return n * plane(); } // reduction groups
  std::int64_t elements() const { return n * c * plane(); }
};

// The variant table (variants.cpp).

std::vector<std::unique_ptr<Variant>> make_variants();

}  // namespace nb::rmsnorm_nchw
