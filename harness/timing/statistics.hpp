#pragma once
// Summary statistics of timed samples: median, min, max, mean, p10/p90 and the coefficient of
// variation. Percentiles interpolate linearly between order statistics.
#include <vector>

namespace nb {

struct SampleStats {
  int samples = 0;
  double median = 0, min = 0, max = 0, mean = 0, p10 = 0, p90 = 0;
  double cv = 0;  // sample standard deviation / mean
};

// Throws std::invalid_argument on an empty list or a negative or non-finite sample.
SampleStats summarize(std::vector<double> samples);

// q in [0,1] over an ascending list.
double percentile_sorted(const std::vector<double>& sorted, double q);

}  // namespace nb
