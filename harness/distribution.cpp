#include "harness/distribution.hpp"

#include "harness/element_draw.hpp"
#include "harness/errors.hpp"
#include "harness/parallel.hpp"

namespace nb {
namespace {
namespace ed = element_draw;
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

std::int64_t special_count(std::int64_t n) { return ed::special_count(n); }

void draw(std::vector<float>& data, Distribution d, std::uint64_t seed, std::uint32_t salt, DType storage) {
  const std::int64_t n = static_cast<std::int64_t>(data.size());
  parallel_for(n, [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t i = b; i < e; ++i)
      data[static_cast<std::size_t>(i)] = static_cast<float>(ed::sample(d, seed, salt, static_cast<std::uint64_t>(i), storage));
  });
  if (d != Distribution::special) return;
  for (std::int64_t k = 0; k < ed::special_count(n); ++k)
    data[static_cast<std::size_t>(ed::special_position(seed, salt, k, n))] = ed::special_value(k);
}

void draw_uniform(std::vector<float>& data, float lo, float hi, std::uint64_t seed, std::uint32_t salt) {
  const std::int64_t n = static_cast<std::int64_t>(data.size());
  parallel_for(n, [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t i = b; i < e; ++i)
      data[static_cast<std::size_t>(i)] = ed::uniform(lo, hi, seed, salt, static_cast<std::uint64_t>(i));
  });
}

}  // namespace nb
