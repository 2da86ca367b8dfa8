#pragma once
// The tolerance policy (docs/tolerance.md): a normwise relative bound and an elementwise bound
// with a floor, both per dtype, both scaled by the instance's condition factor.
#include "harness/dtype.hpp"

namespace nb {

struct Tolerance {
  double normwise = 0;        // ||y - ref||_2 / ||ref||_2 over the finite reference positions
  double elementwise = 0;     // max_i |y_i - ref_i| / (|ref_i| + floor)
  double floor_fraction = 0;  // floor = floor_fraction * rms(ref)

  Tolerance scaled(double condition) const {
    double c = condition < 1 ? 1 : condition;
    return {normwise * c, elementwise * c, floor_fraction};
  }
};

Tolerance default_tolerance(DType t);

// How much a correct fp32 reduction of n terms may drift beyond a short one: rounding errors of
// sequential accumulation walk like sqrt(n) (tree reductions do better). 1 up to n = 64.
double reduction_growth(double reduction_length);

}  // namespace nb
