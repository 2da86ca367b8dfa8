#pragma once
// The element rule of the timed-output check, written once for the device kernels and the host
// tests: after a timed sample, an output element either still holds the disturbance written
// before the sample (the launch did not write it), agrees with the output the variant gave after
// warm-up within a loose bound, or differs. Bit equality is too strict: a variant that sums with
// atomics rounds differently from launch to launch.
#include <cstdint>

#include "harness/dtype.hpp"
#include "harness/host_device.hpp"
#include "harness/portable_math.hpp"
#include "harness/stored_value.hpp"

namespace nb {

enum class ElementAgreement { agrees, disturbed, differs };

// The relative bound of the storage type: a few of its ulps, far below any wrong answer and far
// above what reordered fp32 sums change (fp32 and tf32 1e-3; fp16 4e-3; bf16 3e-2).
NB_HD inline double timed_output_relative_bound(DType storage) {
  return storage == DType::bf16 ? 3e-2 : storage == DType::f16 ? 4e-3 : 1e-3;
}

// Element i of `out` against the snapshot `snap` (both in `storage`). `floor` (the bound times the
// rms of the snapshot) keeps elements near zero from failing on a rounding. NaN agrees with NaN,
// an infinity with the same infinity.
NB_HD inline ElementAgreement element_agreement(const void* out, const void* snap, std::int64_t i, DType storage,
                                                double relative, double floor) {
  if (stored::is_poison(out, i, storage)) return ElementAgreement::disturbed;
  const double y = stored::load(out, i, storage), s = stored::load(snap, i, storage);
  if (portable::is_nan(y) || portable::is_nan(s))
    return portable::is_nan(y) && portable::is_nan(s) ? ElementAgreement::agrees : ElementAgreement::differs;
  if (!portable::is_finite(y) || !portable::is_finite(s)) return y == s ? ElementAgreement::agrees : ElementAgreement::differs;
  return portable::abs(y - s) <= relative * portable::abs(s) + floor ? ElementAgreement::agrees : ElementAgreement::differs;
}

}  // namespace nb
