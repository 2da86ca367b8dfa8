#pragma once
// What a report row derives from a case's timing: GB/s from the op's byte model, the share of
// each ceiling, speedups, and the flags that say whether the time can be trusted.
#include <optional>
#include <string>
#include <vector>

#include "harness/run/runner.hpp"
#include "harness/timing/case_timer.hpp"  // escapes_stream

namespace nb {

// Beats the measured copy ceiling, or (compute-bound problems) the GPU's theoretical compute peak
// at the problem's precision, by more than noise.
inline constexpr const char* kFlagFasterThanLight = "faster_than_light";
inline constexpr const char* kFlagEscapesStream = "escapes_stream";
inline constexpr const char* kFlagThrottled = "throttled";
inline constexpr const char* kFlagFitsInL2 = "fits_in_l2";

struct CaseMetrics {
  WorkModel work;
  std::optional<double> gbps, pct_of_copy, pct_of_peak, speedup_vs_naive, speedup_vs_baseline;
  // Compute-bound problems (a ComputeCeiling in the run): the op's flops over the median, and the
  // ceiling kernel's median over this case's (100 = as fast as the GEMM alone).
  std::optional<double> tflops, pct_of_compute_ceiling;
  std::vector<std::string> flags;

  bool has_flag(const std::string& f) const;
  // Faster than light, escaping the stream or allocating in launch: the time does not measure the work.
  bool timing_untrusted() const {
    return has_flag(kFlagFasterThanLight) || has_flag(kFlagEscapesStream) || has_flag(kFlagAllocatesInLaunch);
  }
};

std::vector<CaseMetrics> compute_metrics(const RunRecord& record);

// The GEMM ceiling's rate as a share of the GPU's theoretical peak at its precision; empty when
// the architecture table knows no peak.
std::optional<double> pct_of_compute_peak(const RunRecord& record, const ComputeCeiling& ceiling);

// 1 when any counted verdict failed or any timing is untrusted, else 0.
int run_exit_status(const RunRecord& record, const std::vector<CaseMetrics>& metrics);

}  // namespace nb
