#pragma once
// One element of a drawn tensor, on the host or the device: the counter-based generator and the
// design's distributions written once (harness/distribution.hpp draws whole host vectors with it,
// the device draws with the same functions). Element i of a tensor depends only on (seed, salt, i)
// and, for `special`, on the tensor's length; every step is IEEE-exact (harness/portable_math.hpp),
// so both sides hold the same bits for any element.
#include <cstdint>
#include <limits>

#include "harness/distribution.hpp"
#include "harness/dtype.hpp"
#include "harness/host_device.hpp"
#include "harness/portable_math.hpp"

namespace nb::element_draw {

// SplitMix64 finaliser: a bijective mix, so distinct counters give independent-looking words.
NB_HD inline std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

NB_HD inline std::uint64_t word(std::uint64_t seed, std::uint32_t salt, std::uint64_t i, std::uint32_t lane) {
  return mix64(mix64(seed ^ (static_cast<std::uint64_t>(salt) << 32 | lane)) + i);
}

// Uniform in (0,1) with 53 random bits, never 0 (Box-Muller takes its log). Exact.
NB_HD inline double unit(std::uint64_t w) { return (static_cast<double>(w >> 11) + 0.5) * 0x1.0p-53; }

NB_HD inline double gaussian(std::uint64_t seed, std::uint32_t salt, std::uint64_t i) {
  const double u1 = unit(word(seed, salt, i, 1)), u2 = unit(word(seed, salt, i, 2));
  return portable::mul(sqrt(portable::mul(-2.0, portable::log(u1))), portable::cos_turns(u2));
}

// The decades `wide` spans in a storage type: fp32 and bf16 share an 8-bit exponent; fp16's tops
// out at 65504 and its normals start at 6.1e-5.
NB_HD inline double wide_decades(DType storage) { return storage == DType::f16 ? 4.0 : 20.0; }

// Element i of distribution d as stated for `storage` (distribution_formula says what each draws),
// before the plants of `special` and the rounding to storage.
NB_HD inline double sample(Distribution d, std::uint64_t seed, std::uint32_t salt, std::uint64_t i, DType storage) {
  using namespace portable;
  switch (d) {
    case Distribution::uniform01: return mul(unit(word(seed, salt, i, 0)), 1.0 - 0x1.0p-24);
    case Distribution::normal:
    case Distribution::special: return gaussian(seed, salt, i);
    case Distribution::offset: {
      // Narrow types: 1e3 with a spread of two ulps of 1e3 (bf16 8, fp16 1), so the deviations
      // survive the rounding to storage and mean/spread (125, 1000) still ruins E[x^2] - E[x]^2.
      if (storage == DType::bf16) return add(1e3, mul(8.0, gaussian(seed, salt, i)));
      if (storage == DType::f16) return add(1e3, gaussian(seed, salt, i));
      return add(1e4, gaussian(seed, salt, i));
    }
    case Distribution::tiny_var: return add(1.0, mul(1e-3, gaussian(seed, salt, i)));
    case Distribution::wide: {
      const double decades = wide_decades(storage);
      const double exponent = add(-decades, mul(2.0 * decades, unit(word(seed, salt, i, 3))));
      const double sign = (word(seed, salt, i, 4) & 1) ? -1.0 : 1.0;
      return sign * exp10(exponent);
    }
  }
  return 0;
}

// Element i of U[lo, hi) (parameters such as weights, which do not follow the distribution), as
// float: lo + (hi - lo) u with hi - lo in float, as draw_uniform has always computed it.
NB_HD inline float uniform(float lo, float hi, std::uint64_t seed, std::uint32_t salt, std::uint64_t i) {
  const double u = unit(word(seed, salt, i, 5));
  return static_cast<float>(portable::add(double(lo), portable::mul(double(hi - lo), u)));
}

// How many specials `special` plants in n elements, where the k-th one goes, and what it is
// (NaN, +Inf, -Inf in turn). A later plant at the same place overwrites an earlier one.
NB_HD inline std::int64_t special_count(std::int64_t n) {
  if (n <= 0) return 0;
  const std::int64_t count = 3 + n / (std::int64_t(1) << 22);
  return count < n ? count : n;
}
NB_HD inline std::int64_t special_position(std::uint64_t seed, std::uint32_t salt, std::int64_t k, std::int64_t n) {
  return static_cast<std::int64_t>(word(seed, salt, static_cast<std::uint64_t>(k), 7) % static_cast<std::uint64_t>(n));
}
NB_HD inline float special_value(std::int64_t k) {
  switch (k % 3) {
    case 0: return std::numeric_limits<float>::quiet_NaN();
    case 1: return std::numeric_limits<float>::infinity();
    default: return -std::numeric_limits<float>::infinity();
  }
}

}  // namespace nb::element_draw
