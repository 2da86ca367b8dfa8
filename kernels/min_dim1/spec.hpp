#pragma once
// Min over dim 1 with keepdim: x (B,C) row-major -> y (B,1), y[b] = min_c x[b,c]. NaN propagates
// (as torch.min does): a row holding a NaN gives NaN.
#include <cstdint>
#include <memory>
#include <vector>

#include "harness/op_spec.hpp"

namespace nb {

namespace min_dim1 {

enum Tensor : int { kX = 0, kY = 1 };

struct Shape {
  std::int64_t b, c;
  std::int64_t elements() const { return b * c; }
};

Shape shape_of(const Problem& p);

std::vector<std::unique_ptr<Variant>> make_variants();

}  // namespace min_dim1

}  // namespace nb
