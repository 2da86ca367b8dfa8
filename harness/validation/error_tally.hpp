#pragma once
// The comparison of output elements with the float64 reference, element by element, written once
// for the host and the device: a tally of some elements that merges with the tally of others in
// any order to the same result (ties in the worst element go to the lower index), so the host's
// chunks and the device's threads report alike. compare.hpp turns a whole tally into TensorErrors.
#include <cmath>
#include <cstdint>

#include "harness/host_device.hpp"
#include "harness/portable_math.hpp"

namespace nb {

struct ErrorTally {
  double diff2 = 0, ref2 = 0;  // sums over positions where the reference and the output are finite
  double elementwise = 0;      // the worst |y - ref| / (|ref| + floor) there
  std::int64_t worst_index = -1;
  double worst_value = 0;
  double worst_reference = 0;
  std::int64_t unwritten = 0, first_unwritten = -1;          // still the poison pattern
  std::int64_t nonfinite_mismatch = 0, first_mismatch = -1;  // NaN/Inf placement differs

  // Placement, not kind: where the reference is non-finite the output must be non-finite too. NaN
  // may stand for an infinity (Welford turns +Inf into Inf - Inf = NaN, as PyTorch's kernels do),
  // but an infinity in the output must have the reference's sign.
  NB_HD static bool same_nonfinite(double y, double r) {
    if (portable::is_finite(y)) return false;
    return portable::is_nan(y) || portable::is_nan(r) || y == r;
  }

  // A reference beyond the storage's largest finite value is an infinity once stored: an output
  // holding that infinity (or NaN standing for it) is in its place.
  NB_HD static bool stored_overflow(double y, double r, double largest) {
    return portable::is_finite(r) && portable::abs(r) > largest && !portable::is_finite(y) &&
           (portable::is_nan(y) || (y > 0) == (r > 0));
  }

  // Element i: y as stored (poisoned: never written; a float output widens exactly), r its reference. `absolute` is subtracted
  // from each difference first (Tolerance::absolute), `floor` added to each |r| (the rms floor); `largest`
  // is the storage's largest finite value (stored_overflow).
  NB_HD void add(std::int64_t i, bool poisoned, double y, double r, double floor, double absolute,
                 double largest = INFINITY) {
    if (poisoned) {
      if (unwritten++ == 0 || i < first_unwritten) first_unwritten = i;
      return;
    }
    if (!portable::is_finite(r) || !portable::is_finite(y)) {
      if (!portable::is_finite(r) && same_nonfinite(y, r)) return;
      if (stored_overflow(y, r, largest)) return;
      if (nonfinite_mismatch++ == 0 || i < first_mismatch) first_mismatch = i;
      return;
    }
    const double gap = portable::abs(y - r) - absolute;
    const double d = gap > 0 ? gap : 0.0;
    diff2 += d * d;
    ref2 += r * r;
    const double denominator = portable::abs(r) + floor;  // 0 only when the reference is all zeros
    const double rel = denominator > 0 ? d / denominator : (d == 0 ? 0.0 : INFINITY);
    take_worst(rel, i, y, r);
  }

  NB_HD void merge(const ErrorTally& o) {
    diff2 += o.diff2;
    ref2 += o.ref2;
    if (o.worst_index >= 0) take_worst(o.elementwise, o.worst_index, o.worst_value, o.worst_reference);
    if (o.unwritten && (first_unwritten < 0 || o.first_unwritten < first_unwritten)) first_unwritten = o.first_unwritten;
    if (o.nonfinite_mismatch && (first_mismatch < 0 || o.first_mismatch < first_mismatch)) first_mismatch = o.first_mismatch;
    unwritten += o.unwritten;
    nonfinite_mismatch += o.nonfinite_mismatch;
  }

 private:
  NB_HD void take_worst(double rel, std::int64_t i, double y, double r) {
    if (worst_index < 0 || rel > elementwise || (rel == elementwise && i < worst_index)) {
      elementwise = rel;
      worst_index = i;
      worst_value = y;
      worst_reference = r;
    }
  }
};

// Sum of squares and count of the finite reference values: their rms sets the comparison's floor.
struct FiniteSquares {
  double sum = 0;
  std::int64_t count = 0;
  NB_HD void add(double r) {
    if (portable::is_finite(r)) sum += r * r, ++count;
  }
  NB_HD void merge(const FiniteSquares& o) { sum += o.sum, count += o.count; }
  double rms() const { return count ? std::sqrt(sum / static_cast<double>(count)) : 0.0; }
};

}  // namespace nb
