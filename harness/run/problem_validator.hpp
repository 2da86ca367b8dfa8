#pragma once
// Validates every variant of one problem. For each distribution and trial a TrialReference draws
// fresh inputs and computes the float64 reference once (on the device, audited by Eigen, or on the
// host: harness/run/trial_reference.hpp); then, per variant, the inout tensors are reset, the
// outputs poisoned, the variant launched, the inputs hashed again, and its outputs judged. A slow
// variant (ValidationPlan::trials_for) skips the later trials of each distribution. An
// interrupt (harness/run/interrupt.hpp) stops it between launches with RunInterrupted; a failed
// audit makes every case an error (reference_disagreement) and ends the problem.
#include <cuda_runtime.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "harness/op_spec.hpp"
#include "harness/run/case_outcome.hpp"
#include "harness/run/problem_buffers.hpp"
#include "harness/run/trial_reference.hpp"
#include "harness/validation/validation_plan.hpp"

namespace nb {

using ProgressNote = std::function<void(const std::string&)>;

// The reason a case carries when the audit found the device reference wrong.
inline constexpr const char* kReferenceDisagreement = "reference_disagreement";

class ProblemValidator {
 public:
  ProblemValidator(const OpSpec& op, const Problem& problem, const ProblemBuffers& buffers, cudaStream_t stream);

  // outcomes[i] belongs to variants[i]; cases that are not runnable are left alone. Returns the
  // seconds the problem's shared phases took; each outcome's phases get its own.
  ProblemPhases run(const ValidationPlan& plan, const std::vector<Variant*>& variants, std::vector<CaseOutcome>& outcomes,
                    const ProgressNote& note) const;

  // The buffers the last trial ran in (its inputs drawn): the given ones, or the last fresh set.
  const ProblemBuffers& buffers() const { return *buffers_; }

 private:
  // `payload` (0 or 1, alternating between trials) poisons the outputs and fills the workspace.
  void validate_one(Variant& variant, TrialReference& reference, std::uint64_t seed, int payload,
                    const std::vector<std::uint64_t>& input_hashes, CaseOutcome& outcome,
                    DistributionVerdict& verdict) const;
  // The plan's fresh_buffers_per_trial: new buffers, allocated while the last ones still live so
  // that no address repeats between consecutive trials.
  void renew_buffers(const std::vector<Variant*>& variants) const;

  const OpSpec& op_;
  const Problem& problem_;
  mutable const ProblemBuffers* buffers_;
  mutable std::unique_ptr<ProblemBuffers> fresh_;
  cudaStream_t stream_;
};

}  // namespace nb
