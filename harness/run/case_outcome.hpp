#pragma once
// Everything the run learned about one (problem, variant) case.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/device/board_window.hpp"
#include "harness/launches/kernel_launches.hpp"
#include "harness/run/phase_times.hpp"
#include "harness/timing/statistics.hpp"
#include "harness/validation/validation_result.hpp"

namespace nb {

// Rule breaks the run sees itself (CaseOutcome::flags), beside the timing flags of case_metrics.hpp.
// A device allocation inside launch(), the timed path (seen by the candidate worker's interposer).
inline constexpr const char* kFlagAllocatesInLaunch = "allocates_in_launch";
// A timed launch left an output unwritten (the disturbance before the sample) or different from
// what it wrote after warm-up (harness/device/timed_output_check.hpp).
inline constexpr const char* kFlagTimedOutputMismatch = "timed_output_mismatch";
// The variant set persisting L2 lines (the device limit or the stream's access-policy window).
inline constexpr const char* kFlagPersistingL2 = "persisting_l2";
// The events' times fall short of the GPU clock's across the same samples (a patched event timer).
inline constexpr const char* kFlagEventTimerMismatch = "event_timer_mismatch";
// A candidate's worker handed back more than one result, or timings its parent did not see it take.
inline constexpr const char* kFlagForgedResult = "forged_result";

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
  // The timed-output check (harness/device/timed_output_check.hpp): "snapshot" or "digest", why a
  // digest, and what the samples left ("" when every timed launch wrote the outputs it wrote after
  // warm-up).
  std::string output_check;
  std::string output_check_note;
  std::string output_mismatch;
  // The median of the GPU clock's time across each sample's events (harness/device/device_clock.hpp).
  double device_ms_per_sample = 0;
  // The board's power and clock caps over the samples (NVML's counters); empty where NVML is absent.
  std::optional<BoardWindow> board;
};

struct CaseOutcome {
  CaseStatus status = CaseStatus::ran;
  std::string reason;  // skip reason (the variant's, the library's, or memory), the error message, or why not run
  ValidationResult validation;
  std::optional<TimingResult> timing;
  // Rule breaks the run saw itself, beside the timing flags (e.g. allocates_in_launch), and what
  // each one saw (flag -> one line).
  std::vector<std::string> flags;
  std::map<std::string, std::string> flag_notes;
  // Cases run in a contained worker process (candidates): completed, crashed or timed_out.
  std::string containment;
  CasePhases phases;  // where its own seconds went
  // The kernels one untimed launch after the validation put on the GPU (harness/run/launch_recording.hpp),
  // or why they were not recorded; none for a case that did not run.
  std::optional<CaseLaunches> launches;

  void skip(std::string why) { status = CaseStatus::skipped, reason = std::move(why); }
  void fail(std::string why) { status = CaseStatus::error, reason = std::move(why); }
  void not_run(std::string why) { status = CaseStatus::not_run, reason = std::move(why); }
  bool runnable() const { return status == CaseStatus::ran; }
  // Adds `flag` once; the first note for it stays.
  void add_flag(const std::string& flag, const std::string& note);
  bool has_flag(const std::string& flag) const;
};

}  // namespace nb
