#pragma once
// Everything the run learned about one (problem, variant) case.
#include <optional>
#include <string>
#include <vector>

#include "harness/run/phase_times.hpp"
#include "harness/timing/statistics.hpp"
#include "harness/validation/validation_result.hpp"

namespace nb {

// not_run: the run ended (aborted or interrupted) before this case finished.
enum class CaseStatus { ran, skipped, error, not_run };
const char* case_status_name(CaseStatus s);

struct TimingResult {
  SampleStats stats;
  std::vector<double> samples_ms;
  double wall_ms_per_launch = 0;
  double submit_ms_per_launch = 0;  // host time to submit one launch (part of the wall time)
  std::optional<int> sm_clock_before_mhz, sm_clock_after_mhz;
  std::vector<std::string> throttle_reasons;
};

struct CaseOutcome {
  CaseStatus status = CaseStatus::ran;
  std::string reason;  // skip reason (the variant's, the library's, or memory), the error message, or why not run
  ValidationResult validation;
  std::optional<TimingResult> timing;
  // Rule breaks the run saw itself, beside the timing flags (e.g. allocates_in_launch).
  std::vector<std::string> flags;
  // Cases run in a contained worker process (candidates): completed, crashed or timed_out.
  std::string containment;
  CasePhases phases;  // where its own seconds went

  void skip(std::string why) { status = CaseStatus::skipped, reason = std::move(why); }
  void fail(std::string why) { status = CaseStatus::error, reason = std::move(why); }
  void not_run(std::string why) { status = CaseStatus::not_run, reason = std::move(why); }
  bool runnable() const { return status == CaseStatus::ran; }
};

}  // namespace nb
