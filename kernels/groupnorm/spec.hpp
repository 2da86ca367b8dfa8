#pragma once
// GroupNorm forward, (N,C,*) layout: statistics per (n, group) over C/G channels x H*W positions
// (one contiguous block of (C/G)*H*W elements), biased variance, per-channel affine.
#include <cstdint>
#include <memory>
#include <vector>

#include "harness/op_spec.hpp"

namespace nb {

namespace groupnorm {

enum Tensor : int { kX = 0, kGamma = 1, kBeta = 2, kY = 3 };

struct Shape {
  std::int64_t n, c, h, w, g;
  double eps;

  std::int64_t hw() const { return h * w; }
  std::int64_t channels_per_group() const { return c / g; }
  std::int64_t group_elements() const { return channels_per_group() * hw(); }  // one contiguous block
  std::int64_t groups() const { return n * g; }                                  // (n, group) pairs
  std::int64_t elements() const { return n * c * hw(); }
};

Shape shape_of(const Problem& p);

// The variant table (kernels/groupnorm/variants.cpp).
std::vector<std::unique_ptr<Variant>> make_variants();

}  // namespace groupnorm

}  // namespace nb
