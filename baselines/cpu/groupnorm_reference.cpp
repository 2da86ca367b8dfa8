#include "baselines/cpu/groupnorm_reference.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <mutex>

#include "harness/parallel.hpp"

namespace nb::cpu {
namespace {

struct GroupStats {
  double mean, var, mean_square;
};

GroupStats group_stats(const float* x, std::int64_t count) {
  double sum = 0, sum_sq = 0;
  for (std::int64_t i = 0; i < count; ++i) sum += x[i], sum_sq += double(x[i]) * x[i];
  const double mean = sum / double(count);
  double dev2 = 0;
  for (std::int64_t i = 0; i < count; ++i) dev2 += (x[i] - mean) * (x[i] - mean);
  return {mean, dev2 / double(count), sum_sq / double(count)};
}

std::int64_t chunk_for(std::int64_t group_elements) {
  return std::max<std::int64_t>(1, 65536 / std::max<std::int64_t>(1, group_elements));
}

}  // namespace

void groupnorm_reference(const GroupNormDims& d, const float* x, const float* gamma, const float* beta, double* y) {
  const std::int64_t cpg = d.c / d.g, count = cpg * d.hw;
  parallel_for(d.n * d.g, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t group = begin; group < end; ++group) {
      const std::int64_t base = group * count;
      const GroupStats s = group_stats(x + base, count);
      const double invstd = 1.0 / std::sqrt(s.var + d.eps);
      const std::int64_t c0 = (group % d.g) * cpg;
      for (std::int64_t k = 0; k < cpg; ++k) {
        const double scale = invstd * gamma[c0 + k], shift = beta[c0 + k];
        for (std::int64_t i = base + k * d.hw, e = i + d.hw; i < e; ++i) y[i] = (x[i] - s.mean) * scale + shift;
      }
    }
  }, chunk_for(count));
}

double groupnorm_condition(const GroupNormDims& d, const float* x) {
  const std::int64_t count = d.c / d.g * d.hw;
  std::mutex m;
  double worst = 1.0;
  parallel_for(d.n * d.g, [&](std::int64_t begin, std::int64_t end) {
    double local = 1.0;
    for (std::int64_t group = begin; group < end; ++group) {
      const GroupStats s = group_stats(x + group * count, count);
      const double k = std::sqrt(s.mean_square / (s.var + d.eps));
      if (std::isfinite(k)) local = std::max(local, k);
    }
    std::lock_guard<std::mutex> lock(m);
    worst = std::max(worst, local);
  }, chunk_for(count));
  return worst;
}

}  // namespace nb::cpu
