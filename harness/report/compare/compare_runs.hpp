#pragma once
// normbench compare: two reports matched row by row on (problem id, variant). Each timed pair
// is SAME, FASTER or SLOWER by a noise rule built from both runs' recorded spread (see
// docs/compare.md); verdict changes are listed first; rows on one side only are ADDED/REMOVED.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace nb {

enum class TimingChange { Same, Faster, Slower, Untimed, Added, Removed };

// "SAME", "FASTER", "SLOWER", "UNTIMED", "ADDED", "REMOVED".
const char* change_name(TimingChange change);

// A difference counts only beyond max(min_pct, spread_multiplier * combined spread, min_us of
// the base's median), where a run's spread is (p90 - p10) / median and the combined spread is
// sqrt(base^2 + new^2). min_us is the absolute floor of a launch-bound case: CUDA events resolve
// about 0.5 us each (NVIDIA's documentation of cudaEventElapsedTime), so medians of two runs 1 us
// apart are not told apart; on the H100 cuDNN's LayerNorm backward, code no tree changes,
// moved 1.0 us (10-11% of 9.2 us) between two runs of one session, beyond their combined spread (9.9-10.5%).
struct NoiseRule {
  double min_pct = 2.0;
  double spread_multiplier = 1.0;
  double min_us = 1.0;
};

struct TimingSpread {
  double median_ms = 0;
  double p10_ms = 0;
  double p90_ms = 0;
};

// The noise threshold in percent for this pair of timings.
double noise_threshold_pct(const TimingSpread& base, const TimingSpread& candidate, const NoiseRule& rule);

// SAME when |new/base - 1| is within the threshold, else FASTER or SLOWER.
TimingChange classify_timing(const TimingSpread& base, const TimingSpread& candidate, const NoiseRule& rule);

struct ComparedRow {
  std::string op, problem, variant;
  TimingChange change = TimingChange::Untimed;
  std::string base_verdict, new_verdict;          // "" on the side where the row is absent
  std::vector<std::string> distribution_changes;  // "offset: passed -> failed"
  std::optional<double> base_median_ms, new_median_ms;
  std::optional<double> ratio;      // new median / base median
  std::optional<double> noise_pct;  // the threshold this pair was judged by

  bool verdict_changed() const;
  bool verdict_regressed() const;  // passed before, not passed now
};

struct RunIdentity {
  std::string path, gpu, commit, started_at;
};

struct Comparison {
  RunIdentity base, candidate;
  NoiseRule rule;
  std::vector<std::string> warnings;  // e.g. the two runs are on different GPUs
  // Context, not regressions: a GEMM ceiling (compute_ceilings[]) of a problem both runs timed
  // that moved beyond noise, so its variants' times moved with the library or the clocks.
  std::vector<std::string> context;
  std::vector<ComparedRow> rows;      // verdict changes first, then SLOWER, FASTER, SAME, UNTIMED, ADDED, REMOVED
};

Comparison compare_reports(const nlohmann::json& base, const nlohmann::json& candidate, const NoiseRule& rule = {});

struct RegressionCheck {
  double threshold_pct = 0;
  std::vector<std::string> reasons;  // one line per regression; empty means none
  bool failed() const { return !reasons.empty(); }
};

// Regressions for --fail-on-regression PCT: a SLOWER pair whose ratio exceeds 1 + PCT/100, or a
// verdict that went from passed to anything else.
RegressionCheck check_regressions(const Comparison& comparison, double threshold_pct);

}  // namespace nb
