#pragma once
// Per-slice reductions for reference programs (baselines/gpu/): for each of `slices` slices, the
// combination over j in [0, length) of term(slice, j), in double, in two plain passes: one thread
// per chunk of a slice, then one thread per slice over its chunks in order. A long row or a whole
// channel is thus summed by many threads, in an order that does not depend on the executor.
#include <cstdint>

#include "harness/host_device.hpp"
#include "harness/portable_math.hpp"
#include "harness/validation/executor.hpp"

namespace nb {

struct Plus {
  NB_HD double operator()(double a, double b) const { return a + b; }
};
// std::max's rule (the accumulator kept unless the next is larger), as the host references use it.
struct Larger {
  NB_HD double operator()(double a, double b) const { return a < b ? b : a; }
};

// The smaller of two (std::min's rule: the accumulator kept unless the next is smaller).
struct Smaller {
  NB_HD double operator()(double a, double b) const { return b < a ? b : a; }
};

// The smaller of two, NaN winning (torch.min propagates NaN).
struct NanMin {
  NB_HD double operator()(double a, double b) const {
    if (portable::is_nan(a) || portable::is_nan(b)) return portable::is_nan(a) ? a : b;
    return b < a ? b : a;
  }
};

inline constexpr std::int64_t kSliceChunk = 4096;

template <class Ex, class Term, class Combine>
Scratch<double> slice_reduce(Ex& ex, std::int64_t slices, std::int64_t length, double init, Term term, Combine combine) {
  const std::int64_t chunks = length > 0 ? (length + kSliceChunk - 1) / kSliceChunk : 1;
  Scratch<double> partial = ex.template scratch<double>(slices * chunks);
  double* p = partial.get();
  ex.each(slices * chunks, [=] NB_HD(std::int64_t t) {
    const std::int64_t slice = t / chunks, begin = (t % chunks) * kSliceChunk;
    const std::int64_t end = begin + kSliceChunk < length ? begin + kSliceChunk : length;
    double acc = init;
    for (std::int64_t j = begin; j < end; ++j) acc = combine(acc, term(slice, j));
    p[t] = acc;
  });
  Scratch<double> result = ex.template scratch<double>(slices);
  double* out = result.get();
  ex.each(slices, [=] NB_HD(std::int64_t slice) {
    double acc = init;
    for (std::int64_t c = 0; c < chunks; ++c) acc = combine(acc, p[slice * chunks + c]);
    out[slice] = acc;
  });
  return result;
}

template <class Ex, class Term>
Scratch<double> slice_sums(Ex& ex, std::int64_t slices, std::int64_t length, Term term) {
  return slice_reduce(ex, slices, length, 0.0, term, Plus{});
}

}  // namespace nb
