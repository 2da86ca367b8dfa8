#pragma once
// Softmax over dim 1 of a row-major (M,N) tensor: y[m,:] = exp(x[m,:] - max) / sum(exp(x[m,:] - max)).
#include <cstdint>
#include <memory>
#include <vector>

#include "harness/op_spec.hpp"

namespace nb {

namespace softmax {

enum Tensor : int { kX = 0, kY = 1 };

struct Shape {
  std::int64_t m, n;
  std::int64_t elements() const { return m * n; }
};

Shape shape_of(const Problem& p);

std::vector<std::unique_ptr<Variant>> make_variants();

}  // namespace softmax

}  // namespace nb
