#pragma once
// What validation concluded for one variant on one problem: a verdict per distribution (worst
// trial), and the disposition that the report and the exit status use.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/distribution.hpp"
#include "harness/tolerance.hpp"
#include "harness/validation/compare.hpp"
#include "harness/validation/reference_summary.hpp"

namespace nb {

struct DistributionVerdict {
  Distribution distribution = Distribution::uniform01;
  bool passed = true;
  bool counts = true;          // false: a stress distribution the variant does not claim
  std::string stress_reason;   // why the op does not promise accuracy here ("" if not stress)
  std::vector<std::uint64_t> seeds;
  double normwise = 0, elementwise = 0;
  std::int64_t unwritten = 0, nonfinite_mismatch = 0;
  bool input_modified = false;
  std::string failure;                  // first failure over the trials
  std::vector<TensorErrors> tensors;    // of the worst trial

  void add_trial(std::uint64_t seed, const TrialJudgement& j);
};

// normbench eval's hidden odd sibling of a candidate's problem (harness/odd_sibling.hpp):
// validated, never timed, never listed. A candidate may refuse it (supports() says no); one that
// takes it must get it right.
struct HiddenShapeVerdict {
  std::string problem;  // the sibling's id
  // passed; incorrect; refused; error (a launch failed); crashed or timed_out (its worker ended
  // during it); unverified (the harness could not judge it: its reference disagreed)
  std::string verdict;
  std::string detail;   // the failure, the refusal's reason, or how the worker ended
  bool fails() const;
};

enum class Disposition { passed, incorrect, not_verified };
const char* disposition_name(Disposition d);

struct ValidationResult {
  Disposition disposition = Disposition::not_verified;
  double condition = 1;      // worst over the trials
  Tolerance tolerance;       // base tolerance before scaling by the condition
  std::vector<DistributionVerdict> distributions;
  double launch_ms_estimate = 0;  // event time of the last validation launch (sets sample counts)
  // The outputs of a launch made after the timed loop, on fresh inputs in the timing buffers
  // (RunOptions::recheck_after_timing): catches work skipped after warm-up and stale caches.
  std::optional<DistributionVerdict> after_timing;
  std::optional<HiddenShapeVerdict> hidden_shape;
  ReferenceSummary reference;  // where the problem's reference was computed, and its audit

  // passed unless a counted distribution failed; not_verified when nothing ran.
  void conclude();
  // Records the hidden sibling's verdict; one that fails makes a validated case incorrect.
  void add_hidden_shape(HiddenShapeVerdict verdict);
  std::vector<std::string> robust_to() const;  // stress distributions that passed
};

}  // namespace nb
