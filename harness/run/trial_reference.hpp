#pragma once
// One trial of a problem: its inputs drawn into the problem's buffers, its float64 reference and
// tolerances, and the judging of a launch's outputs (docs/validation.md). Two forms:
// - on the device: the op's declared draws and reference program run on the GPU, the comparison
//   too, and Eigen audits sampled slices (make_device_trial_reference);
// - on the host: Eigen computes the whole reference from host draws, the inputs go up and the
//   outputs come down (make_host_trial_reference), for ops without a program, problems whose
//   device reference does not fit, and `--reference host`.
#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <string>

#include "harness/op_spec.hpp"
#include "harness/run/phase_times.hpp"
#include "harness/run/problem_buffers.hpp"
#include "harness/validation/compare.hpp"
#include "harness/validation/reference_audit.hpp"
#include "harness/validation/reference_summary.hpp"
#include "harness/validation/trial_tolerance.hpp"

namespace nb {

class TrialReference {
 public:
  virtual ~TrialReference() = default;

  // Draws the inputs of (distribution, seed) into every input and inout tensor of `buffers` and
  // computes the reference; adds its seconds to `phases`. Throws ReferenceDisagreement when the
  // audit of a device reference fails.
  // The host part of a device reference's audit runs while the variants do; prepare() waits for
  // the previous trial's first. The audit's part in prepare() (its slices chosen, its copies from
  // the device enqueued) goes to phases.audit_gather_s.
  virtual void prepare(const ProblemBuffers& buffers, Distribution d, std::uint64_t seed, ProblemPhases& phases) = 0;
  // Waits for the host part of the last trial's audit (its seconds go to phases.audit_wait_s); throws
  // ReferenceDisagreement as prepare() does. summary() is complete after it.
  virtual void settle(ProblemPhases&) {}
  const TrialTolerances& tolerances() const { return tolerances_; }
  // The inout tensors as drawn (before every launch); every input as drawn (after a launch wrote one).
  virtual void reset_inouts() = 0;
  virtual void restore_inputs() = 0;
  // The buffers' outputs against the reference.
  virtual TrialJudgement judge(bool input_modified) = 0;
  virtual const ReferenceSummary& summary() const = 0;

 protected:
  TrialTolerances tolerances_;
};

std::unique_ptr<TrialReference> make_host_trial_reference(const OpSpec& op, const Problem& problem,
                                                          const std::vector<TensorDecl>& decls, cudaStream_t stream,
                                                          std::string why_host);
std::unique_ptr<TrialReference> make_device_trial_reference(const OpSpec& op, const Problem& problem,
                                                            const std::vector<TensorDecl>& decls, cudaStream_t stream,
                                                            const AuditBudget& budget);

// Fills every input and inout tensor of `buffers` with the trial (distribution, seed) draws: on
// the device when the op declares its draws (and its derived inputs by program), else on the host
// and uploaded. The timing buffers are filled this way.
void draw_trial_inputs(const OpSpec& op, const Problem& problem, const ProblemBuffers& buffers, Distribution d,
                       std::uint64_t seed, cudaStream_t stream);

// Why `op` cannot have a device reference at all ("" when it can).
std::string why_no_device_reference(const OpSpec& op, const Problem& problem);

// Device bytes a device reference adds to the problem's buffers: a double per output and inout
// element, and room for the program's own scratch (a double per input element).
double device_reference_bytes(const std::vector<TensorDecl>& decls);

}  // namespace nb
