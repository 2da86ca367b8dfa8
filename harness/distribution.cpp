#include "harness/distribution.hpp"

#include <cmath>
#include <limits>

#include "harness/errors.hpp"
#include "harness/parallel.hpp"

namespace nb {
namespace {

// SplitMix64 finaliser: a bijective mix, so distinct counters give independent-looking words.
std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

std::uint64_t word(std::uint64_t seed, std::uint32_t salt, std::uint64_t i, std::uint32_t lane) {
  return mix64(mix64(seed ^ (static_cast<std::uint64_t>(salt) << 32 | lane)) + i);
}

// Uniform in (0,1) with 53 random bits, never 0 (Box-Muller takes its log).
double unit(std::uint64_t w) { return (static_cast<double>(w >> 11) + 0.5) * 0x1.0p-53; }

double gaussian(std::uint64_t seed, std::uint32_t salt, std::uint64_t i) {
  double u1 = unit(word(seed, salt, i, 1)), u2 = unit(word(seed, salt, i, 2));
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

// The decades `wide` spans in a storage type: fp32 and bf16 share an 8-bit exponent; fp16's tops
// out at 65504 and its normals start at 6.1e-5.
double wide_decades(DType storage) { return storage == DType::f16 ? 4.0 : 20.0; }

double sample(Distribution d, std::uint64_t seed, std::uint32_t salt, std::uint64_t i, DType storage) {
  switch (d) {
    case Distribution::uniform01: return unit(word(seed, salt, i, 0)) * (1.0 - 0x1.0p-24);
    case Distribution::normal:
    case Distribution::special: return gaussian(seed, salt, i);
    case Distribution::offset: {
      // Narrow types: 1e3 with a spread of two ulps of 1e3 (bf16 8, fp16 1), so the deviations
      // survive the rounding to storage and mean/spread (125, 1000) still ruins E[x^2] - E[x]^2.
      if (storage == DType::bf16) return 1e3 + 8.0 * gaussian(seed, salt, i);
      if (storage == DType::f16) return 1e3 + gaussian(seed, salt, i);
      return 1e4 + gaussian(seed, salt, i);
    }
    case Distribution::tiny_var: return 1.0 + 1e-3 * gaussian(seed, salt, i);
    case Distribution::wide: {
      const double decades = wide_decades(storage);
      double exponent = -decades + 2.0 * decades * unit(word(seed, salt, i, 3));
      double sign = (word(seed, salt, i, 4) & 1) ? -1.0 : 1.0;
      return sign * std::pow(10.0, exponent);
    }
  }
  return 0;
}

}  // namespace

const std::vector<Distribution>& all_distributions() {
  static const std::vector<Distribution> all = {Distribution::uniform01, Distribution::normal,
                                                Distribution::offset,    Distribution::tiny_var,
                                                Distribution::wide,      Distribution::special};
  return all;
}

std::string distribution_name(Distribution d) {
  switch (d) {
    case Distribution::uniform01: return "uniform01";
    case Distribution::normal: return "normal";
    case Distribution::offset: return "offset";
    case Distribution::tiny_var: return "tiny_var";
    case Distribution::wide: return "wide";
    case Distribution::special: return "special";
  }
  return "?";
}

std::string distribution_formula(Distribution d, DType storage) {
  if (d == Distribution::offset && storage == DType::bf16) return "1e3 + 8 N(0,1)";
  if (d == Distribution::offset && storage == DType::f16) return "1e3 + N(0,1)";
  if (d == Distribution::wide && storage == DType::f16) return "+-10^U(-4,4)";
  switch (d) {
    case Distribution::uniform01: return "U[0,1)";
    case Distribution::normal: return "N(0,1)";
    case Distribution::offset: return "1e4 + N(0,1)";
    case Distribution::tiny_var: return "1 + 1e-3 N(0,1)";
    case Distribution::wide: return "+-10^U(-20,20)";
    case Distribution::special: return "N(0,1) with NaN/+Inf/-Inf planted";
  }
  return "?";
}

Distribution parse_distribution(const std::string& name) {
  for (Distribution d : all_distributions())
    if (distribution_name(d) == name) return d;
  throw UsageError("unknown distribution '" + name +
                   "' (known: uniform01, normal, offset, tiny_var, wide, special)");
}

std::int64_t special_count(std::int64_t n) {
  if (n <= 0) return 0;
  return std::min<std::int64_t>(n, 3 + n / (1 << 22));
}

void draw(std::vector<float>& data, Distribution d, std::uint64_t seed, std::uint32_t salt, DType storage) {
  const std::int64_t n = static_cast<std::int64_t>(data.size());
  parallel_for(n, [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t i = b; i < e; ++i)
      data[static_cast<std::size_t>(i)] = static_cast<float>(sample(d, seed, salt, static_cast<std::uint64_t>(i), storage));
  });
  if (d != Distribution::special) return;
  const float specials[3] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                             -std::numeric_limits<float>::infinity()};
  for (std::int64_t k = 0; k < special_count(n); ++k) {
    std::uint64_t at = word(seed, salt, static_cast<std::uint64_t>(k), 7) % static_cast<std::uint64_t>(n);
    data[at] = specials[k % 3];
  }
}

void draw_uniform(std::vector<float>& data, float lo, float hi, std::uint64_t seed, std::uint32_t salt) {
  const std::int64_t n = static_cast<std::int64_t>(data.size());
  parallel_for(n, [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t i = b; i < e; ++i) {
      double u = unit(word(seed, salt, static_cast<std::uint64_t>(i), 5));
      data[static_cast<std::size_t>(i)] = static_cast<float>(lo + (hi - lo) * u);
    }
  });
}

}  // namespace nb
