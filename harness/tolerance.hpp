#pragma once
// The tolerance policy (docs/tolerance.md): a normwise relative bound and an elementwise bound
// with a floor, both per dtype, both scaled by the instance's condition factor.
#include "harness/dtype.hpp"

namespace nb {

struct Tolerance {
  double normwise = 0;        // ||y - ref||_2 / ||ref||_2 over the finite reference positions
  double elementwise = 0;     // max_i |y_i - ref_i| / (|ref_i| + floor)
  double floor_fraction = 0;  // floor = floor_fraction * rms(ref)
  // An absolute error every element may carry before either measure counts it: half the spacing
  // of the storage type's subnormals (fp16 softmax rows longer than 16384 store values below
  // fp16's smallest normal). 0 for fp32 and bf16, whose subnormals lie far below any output.
  double absolute = 0;
  // The loosest normwise bound that still tells right from wrong (0: no ceiling). A check held to
  // a looser one is inconclusive: shown, never counted as passed (docs/tolerance.md). Scaling by
  // a condition leaves it alone: the condition widens the bound, not what discriminates.
  double ceiling = 0;

  Tolerance scaled(double condition) const {
    double c = condition < 1 ? 1 : condition;
    return {normwise * c, elementwise * c, floor_fraction, absolute, ceiling};
  }
  bool discriminates() const { return ceiling <= 0 || normwise <= ceiling; }
};

// The bounds of the computation at a precision (bf16 and fp16 problems compute in fp32).
Tolerance default_tolerance(DType t);

// What storing an output in a narrow type adds to its bounds, unscaled by any condition (the
// rounding is relative to the output itself): normwise 1.25 u, elementwise 4 u (two roundings
// of one element, y = round(round(x * rstd) * w), with room), and the subnormal allowance.
// All zero for fp32 storage. docs/tolerance.md derives them.
Tolerance storage_rounding(DType storage);

// a + b, boundwise (the floor fraction of a); the ceiling at least four times b's normwise bound.
Tolerance plus_rounding(const Tolerance& a, const Tolerance& rounding);

// The discrimination ceiling (Tolerance::ceiling) of an output of a `precision` problem stored in
// `storage`: 1e-2 where the computation is fp32 (a kernel off by 1% everywhere would pass a looser
// bound); 2.5e-2 for tf32, whose base bound 3e-3 the condition of ordinary BatchNorm data (3 to 7)
// already takes past 1e-2; and at least four times what storing in a narrow type allows (bf16:
// 1.95e-2). docs/tolerance.md, "Bounds that cannot discriminate".
double discrimination_ceiling(DType precision, DType storage);

// How much a correct fp32 reduction of n terms may drift beyond a short one: rounding errors of
// sequential accumulation walk like sqrt(n) (tree reductions do better). 1 up to n = 64.
double reduction_growth(double reduction_length);

}  // namespace nb
