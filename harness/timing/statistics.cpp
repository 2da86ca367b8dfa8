#include "harness/timing/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace nb {

double percentile_sorted(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) throw std::invalid_argument("percentile of no samples");
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const auto hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

SampleStats summarize(std::vector<double> samples) {
  if (samples.empty()) throw std::invalid_argument("no timing samples");
  for (double s : samples)
    if (!std::isfinite(s) || s < 0) throw std::invalid_argument("timing sample is negative or not finite");
  std::sort(samples.begin(), samples.end());
  SampleStats st;
  st.samples = static_cast<int>(samples.size());
  st.min = samples.front();
  st.max = samples.back();
  st.median = percentile_sorted(samples, 0.5);
  st.p10 = percentile_sorted(samples, 0.1);
  st.p90 = percentile_sorted(samples, 0.9);
  st.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / st.samples;
  if (st.samples > 1 && st.mean > 0) {
    double ss = 0;
    for (double s : samples) ss += (s - st.mean) * (s - st.mean);
    st.cv = std::sqrt(ss / (st.samples - 1)) / st.mean;
  }
  return st;
}

}  // namespace nb
