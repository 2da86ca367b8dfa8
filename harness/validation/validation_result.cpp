#include "harness/validation/validation_result.hpp"

#include <algorithm>

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
    case Disposition::not_verified: return "not_verified";
  }
  return "?";
}

void ValidationResult::conclude() {
  if (distributions.empty()) {
    disposition = Disposition::not_verified;
    return;
  }
  disposition = Disposition::passed;
  for (const auto& d : distributions)
    if (d.counts && !d.passed) disposition = Disposition::incorrect;
}

void ValidationResult::add_hidden_shape(HiddenShapeVerdict verdict) {
  if (verdict.fails() && disposition == Disposition::passed) disposition = Disposition::incorrect;
  hidden_shape = std::move(verdict);
}

std::vector<std::string> ValidationResult::robust_to() const {
  std::vector<std::string> names;
  for (const auto& d : distributions)
    if (!d.stress_reason.empty() && d.passed) names.push_back(distribution_name(d.distribution));
  return names;
}

}  // namespace nb
