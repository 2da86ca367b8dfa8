#include "harness/tolerance.hpp"

#include <algorithm>
#include <cmath>

namespace nb {

Tolerance default_tolerance(DType t) {
  switch (t) {
    // fp32 unit roundoff is 6e-8; docs/tolerance.md derives these. An all-zero output (error 1)
    // or a one-element shift (error ~1.4) stays five orders of magnitude out.
    case DType::f32: return {1e-5, 1e-4, 1e-2, 0, 1e-2};
    // TF32 rounds each GEMM operand to 11 significant bits (u = 4.9e-4): the products carry that
    // error whatever K is, so the bounds start from u, not from fp32's roundoff. A normalized
    // output's single element sits ~5 sigma out of 8M at 4e-3 of rms; the floor of 0.1 rms keeps
    // near-zero elements from demanding more (docs/tolerance.md derives both).
    case DType::tf32: return {3e-3, 1e-1, 1e-1, 0, 2.5e-2};
    // bf16 and fp16 problems compute in fp32: their storage adds storage_rounding per tensor.
    case DType::bf16:
    case DType::f16: return {1e-5, 1e-4, 1e-2, 0, 1e-2};
  }
  return {1e-5, 1e-4, 1e-2, 0, 1e-2};
}

Tolerance storage_rounding(DType storage) {
  if (!is_narrow(storage)) return {0, 0, 0, 0};
  const double u = unit_roundoff(storage);
  const double half_subnormal = storage == DType::f16 ? 0x1.0p-25 : 0.0;  // bf16's: 2^-134
  return {1.25 * u, 4.0 * u, 0, half_subnormal};
}

double discrimination_ceiling(DType precision, DType storage) {
  return plus_rounding(default_tolerance(precision), storage_rounding(storage)).ceiling;
}

Tolerance plus_rounding(const Tolerance& a, const Tolerance& rounding) {
  return {a.normwise + rounding.normwise, a.elementwise + rounding.elementwise, a.floor_fraction,
          a.absolute + rounding.absolute, a.ceiling > 0 ? std::max(a.ceiling, 4.0 * rounding.normwise) : 0.0};
}

}  // namespace nb

namespace nb {

double reduction_growth(double reduction_length) {
  return reduction_length > 64 ? std::sqrt(reduction_length) / 8.0 : 1.0;
}

}  // namespace nb
