#include "harness/validation/validation_result.hpp"

#include <algorithm>
#include <limits>

#include "harness/errors.hpp"

namespace nb {

void DistributionVerdict::add_trial(std::uint64_t seed, const TrialJudgement& j) {
  seeds.push_back(seed);
  double worst_normwise = 0;
  for (const auto& t : j.tensors) worst_normwise = std::max(worst_normwise, t.normwise);
  const bool worse = !j.passed && passed;  // keep the first failing trial's tensors, else the worst
  if (worse || (passed && worst_normwise >= normwise) || tensors.empty()) tensors = j.tensors;
  for (const auto& t : j.tensors) {
    normwise = std::max(normwise, t.normwise);
    elementwise = std::max(elementwise, t.elementwise);
    unwritten = std::max(unwritten, t.unwritten);
    nonfinite_mismatch = std::max(nonfinite_mismatch, t.nonfinite_mismatch);
  }
  for (const auto& t : j.tensors) {
    const double share = std::min(t.share_of_bound(), std::numeric_limits<double>::max());  // JSON holds no inf
    if (!t.hard_failure() && (worst_share_tensor.empty() || share > worst_share)) {
      worst_share = share;
      worst_share_tensor = t.name;
    }
    if (t.inconclusive && std::find(inconclusive.begin(), inconclusive.end(), t.name) == inconclusive.end())
      inconclusive.push_back(t.name);
  }
  hard_failed = hard_failed || j.hard_failure;
  numeric_failed = numeric_failed || j.numeric_failure;
  input_modified = input_modified || j.input_modified;
  if (!j.passed && passed) failure = j.failure + " (seed " + std::to_string(seed) + ")";
  passed = passed && j.passed;
}

bool HiddenShapeVerdict::fails() const {
  return verdict == "incorrect" || verdict == "error" || verdict == "crashed" || verdict == "timed_out";
}

const char* disposition_name(Disposition d) {
  switch (d) {
    case Disposition::passed: return "passed";
    case Disposition::incorrect: return "incorrect";
    case Disposition::inconclusive: return "inconclusive";
    case Disposition::flagged: return "flagged";
    case Disposition::not_verified: return "not_verified";
  }
  return "?";
}

Disposition parse_disposition(const std::string& name) {
  for (Disposition d : {Disposition::passed, Disposition::incorrect, Disposition::inconclusive, Disposition::flagged,
                        Disposition::not_verified})
    if (name == disposition_name(d)) return d;
  throw UsageError("unknown disposition '" + name + "'");
}

void ValidationResult::conclude(bool strict) {
  if (distributions.empty()) {
    disposition = Disposition::not_verified;
    return;
  }
  bool failed = false, conclusive = false;
  for (const auto& d : distributions) {
    failed = failed || d.hard_failed || (d.numeric_failed && (d.counts || strict)) || (d.counts && !d.passed);
    conclusive = conclusive || (d.counts && d.conclusive());
  }
  disposition = failed ? Disposition::incorrect : conclusive ? Disposition::passed : Disposition::inconclusive;
}

std::vector<StressExcess> ValidationResult::fragile() const {
  std::vector<StressExcess> excess;
  for (const auto& d : distributions)
    if (!d.counts && d.numeric_failed && !d.hard_failed)
      excess.push_back({d.distribution, d.worst_share_tensor, d.worst_share});
  return excess;
}

std::vector<std::string> ValidationResult::inconclusive_checks() const {
  std::vector<std::string> checks;
  for (const auto& d : distributions)
    if (d.counts)
      for (const auto& t : d.inconclusive) checks.push_back(distribution_name(d.distribution) + ": " + t);
  return checks;
}

void ValidationResult::add_hidden_shape(HiddenShapeVerdict verdict) {
  if (verdict.fails() && (disposition == Disposition::passed || disposition == Disposition::inconclusive))
    disposition = Disposition::incorrect;
  hidden_shape = std::move(verdict);
}

std::vector<std::string> ValidationResult::robust_to() const {
  std::vector<std::string> names;
  for (const auto& d : distributions)
    if (!d.stress_reason.empty() && d.passed) names.push_back(distribution_name(d.distribution));
  return names;
}

}  // namespace nb
