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
  bool passed = true;          // every check of every trial held
  bool counts = true;          // false: a stress distribution the variant does not claim
  // What failed over the trials: a check no distribution relaxes (unwritten elements, NaN/Inf
  // placement, a changed input), which fails the case even where the verdict does not count;
  // or a numeric bound, which counts only where the verdict counts.
  bool hard_failed = false;
  bool numeric_failed = false;
  // The worst error as a share of its bound over the trials (above 1 fails), and its tensor.
  double worst_share = 0;
  std::string worst_share_tensor;
  // Tensors whose bound was too loose to discriminate in some trial (TensorErrors::inconclusive).
  std::vector<std::string> inconclusive;
  std::string stress_reason;   // why the op does not promise accuracy here ("" if not stress)
  std::vector<std::uint64_t> seeds;
  double normwise = 0, elementwise = 0;
  std::int64_t unwritten = 0, nonfinite_mismatch = 0;
  bool input_modified = false;
  std::string failure;                  // first failure over the trials
  std::vector<TensorErrors> tensors;    // of the worst trial

  void add_trial(std::uint64_t seed, const TrialJudgement& j);
  // Some tensor was held to a discriminating bound in every trial (a verdict that judged no
  // tensor has no inconclusive check either).
  bool conclusive() const { return tensors.empty() || inconclusive.size() < tensors.size(); }
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

// passed: every counted check held and at least one of them could tell right from wrong;
// incorrect: a check failed; inconclusive: nothing failed, but no counted check could have
// (every bound beyond discrimination_ceiling); flagged: correct outputs, but the timing or a
// rule of the run was broken (the report's disposition, from the flags); not_verified: skipped,
// errored, or nothing ran.
enum class Disposition { passed, incorrect, inconclusive, flagged, not_verified };
const char* disposition_name(Disposition d);
Disposition parse_disposition(const std::string& name);  // throws UsageError

// A stress distribution (one the variant does not claim) whose numeric bound the variant missed
// while its counted distributions passed: the case stands, marked fragile (--strict fails it).
struct StressExcess {
  Distribution distribution = Distribution::uniform01;
  std::string tensor;
  double share_of_bound = 0;  // the error over its bound (> 1)
};

struct ValidationResult {
  Disposition disposition = Disposition::not_verified;
  double condition = 1;      // worst over the trials
  // The largest operand amplification over the trials (TrialTolerances::worst_amplification): 0
  // unless the precision rounds a GEMM's operands.
  double operand_amplification = 0;
  Tolerance tolerance;       // base tolerance before scaling by the condition
  std::vector<DistributionVerdict> distributions;
  double launch_ms_estimate = 0;  // event time of the last validation launch (sets sample counts)
  // The outputs of a launch made after the timed loop, on fresh inputs in the timing buffers
  // (RunOptions::recheck_after_timing): catches work skipped after warm-up and stale caches.
  std::optional<DistributionVerdict> after_timing;
  std::optional<HiddenShapeVerdict> hidden_shape;
  ReferenceSummary reference;  // where the problem's reference was computed, and its audit

  // From the distributions (Disposition above): incorrect when a hard check failed anywhere or a
  // numeric one where it counts (with `strict`, also where it does not); else inconclusive when
  // no counted distribution was conclusive; else passed. not_verified when nothing ran.
  void conclude(bool strict = false);
  // Records the hidden sibling's verdict; one that fails makes a validated case incorrect.
  void add_hidden_shape(HiddenShapeVerdict verdict);
  std::vector<std::string> robust_to() const;  // stress distributions that passed
  std::vector<StressExcess> fragile() const;   // stress distributions whose bound was missed
  // "<distribution>: <tensor>" for every counted distribution's inconclusive tensor.
  std::vector<std::string> inconclusive_checks() const;
};

}  // namespace nb
