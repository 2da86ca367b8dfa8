#pragma once
// What a report row derives from a case's timing: GB/s from the op's byte model, the share of
// each ceiling, speedups, and the flags that say whether the time can be trusted.
#include <optional>
#include <string>
#include <vector>

#include "harness/report/case_flags.hpp"
#include "harness/run/runner.hpp"
#include "harness/timing/case_timer.hpp"  // escapes_stream

namespace nb {


struct CaseMetrics {
  WorkModel work;
  std::optional<double> gbps, pct_of_copy, pct_of_peak, speedup_vs_naive, speedup_vs_baseline;
  // Compute-bound problems (a ComputeCeiling in the run): the op's flops over the median, and the
  // ceiling kernel's median over this case's (100 = as fast as the GEMM alone).
  std::optional<double> tflops, pct_of_compute_ceiling;
  std::vector<std::string> flags;

  bool has_flag(const std::string& f) const;
  // Any flag but the informational ones (fits_in_l2, throttled): faster than light, escaping the
  // stream, or a rule the case broke (allocating in launch, ...): the time does not measure the work.
  bool timing_untrusted() const;
};

// The disposition a report gives a case: its validation's, except that a case whose outputs passed
// while its timing is untrusted is `flagged`, never `passed`; not_verified when it did not run.
Disposition reported_disposition(const CaseOutcome& outcome, const CaseMetrics& metrics);

std::vector<CaseMetrics> compute_metrics(const RunRecord& record);

// The GEMM ceiling's rate as a share of the GPU's theoretical peak at its precision; empty when
// the architecture table knows no peak.
std::optional<double> pct_of_compute_peak(const RunRecord& record, const ComputeCeiling& ceiling);

// Whether a library baseline's (cuDNN's, cuBLAS's) incorrect verdict comes only from where NaN and
// Inf land on the `special` and `wide` inputs: no unwritten element, no changed input, no counted
// numeric failure, some misplaced non-finite value (a stress distribution's numeric excess, which
// fails no case, is left aside). cuDNN's batchnorm_train overflows its running variance on `wide`
// on every GPU measured; the report keeps the verdict. The GPU quick-suite test holds library
// baselines to the same rule.
bool library_misplaces_nonfinite_only(const Variant& v, const CaseOutcome& o);

// 1 when any case is not passed (incorrect, inconclusive, flagged, or errored), else 0; a library
// baseline that only misplaces NaN/Inf on special or wide inputs does not set it (the library's
// defect, not the run's: library_misplaces_nonfinite_only).
int run_exit_status(const RunRecord& record, const std::vector<CaseMetrics>& metrics);

}  // namespace nb
