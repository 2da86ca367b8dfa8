#pragma once
// The shape the row normalizations of kernels/rows/ take from a problem: M rows of N contiguous
// values (the reduced dim), and eps.
#include <cstdint>

#include "harness/problem.hpp"

namespace nb::rows {

struct RowShape {
  std::int64_t m = 0, n = 0;  // rows, row length (the reduced dim)
  float eps = 0;

  static RowShape of(const Problem& p) { return {p.dim("m"), p.dim("n"), static_cast<float>(p.real("eps"))}; }
  std::int64_t elements() const { return m * n; }
};

}  // namespace nb::rows
