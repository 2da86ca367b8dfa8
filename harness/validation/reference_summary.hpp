#pragma once
// Which float64 reference a problem's trials got, and what Eigen's audit of a device reference
// found (docs/validation.md). The report carries it on every row of the problem.
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace nb {

// One slice family's share of an audit, per trial.
struct FamilyAudit {
  std::string unit;                  // "row", "channel", "group", "column"
  std::int64_t slices = 0, of = 0;   // audited in each trial, and in the problem
  std::vector<std::string> checked;  // the output tensors compared
};

struct ReferenceSummary {
  std::string computed_on = "host";  // "device": plain float64 kernels, audited; "host": Eigen throughout
  std::string why_host;              // why not the device ("" when it was)
  std::vector<FamilyAudit> families;
  int audited_trials = 0;
  std::int64_t drawn_elements_checked = 0;  // device-drawn inputs redrawn on the host, bit for bit alike
  // Device against Eigen over the audited slices, as the comparison measures a variant (normwise,
  // and elementwise with the tolerance's floor), and the largest share of the audit's bound (1e-3 of
  // the variants' tolerance) either reached: below 1 passes.
  double worst_normwise = 0, worst_elementwise = 0, worst_share_of_bound = 0;

  // Another's audits added to these: trials and checked draws summed, the worst figures kept, and
  // its families (what each trial audits) in place of these.
  void add_audits(const ReferenceSummary& other) {
    if (other.audited_trials == 0) return;
    families = other.families;
    audited_trials += other.audited_trials;
    drawn_elements_checked += other.drawn_elements_checked;
    worst_normwise = std::max(worst_normwise, other.worst_normwise);
    worst_elementwise = std::max(worst_elementwise, other.worst_elementwise);
    worst_share_of_bound = std::max(worst_share_of_bound, other.worst_share_of_bound);
  }

  bool full() const {
    for (const FamilyAudit& f : families)
      if (f.slices < f.of) return false;
    return !families.empty();
  }
};

// The device reference and Eigen disagree: the verdicts of the problem cannot be trusted, and no
// variant is to blame. The cases become errors named reference_disagreement.
struct ReferenceDisagreement : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The audit holds the device reference to this share of each tensor's tolerance.
inline constexpr double kAuditShareOfTolerance = 1e-3;

}  // namespace nb
