#pragma once
// Validates every variant of one problem. For each distribution and trial it draws fresh inputs,
// computes the float64 reference once, and then, per variant: resets inout tensors, poisons the
// outputs, launches, hashes the inputs again, downloads the results and judges them. An interrupt
// (harness/run/interrupt.hpp) stops it between launches with RunInterrupted.
#include <cuda_runtime.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "harness/op_spec.hpp"
#include "harness/run/case_outcome.hpp"
#include "harness/run/problem_buffers.hpp"
#include "harness/validation/validation_plan.hpp"

namespace nb {

using ProgressNote = std::function<void(const std::string&)>;

class ProblemValidator {
 public:
  ProblemValidator(const OpSpec& op, const Problem& problem, const ProblemBuffers& buffers, cudaStream_t stream);

  // outcomes[i] belongs to variants[i]; cases that are not runnable are left alone. Returns the
  // seconds the problem's shared phases took; each outcome's phases get its own.
  ProblemPhases run(const ValidationPlan& plan, const std::vector<Variant*>& variants, std::vector<CaseOutcome>& outcomes,
           const ProgressNote& note) const;

 private:
  struct Trial;
  void validate_one(Variant& variant, const Trial& trial, HostTensors& results, CaseOutcome& outcome,
                    DistributionVerdict& verdict) const;
  std::vector<std::uint64_t> hash_inputs() const;
  // The plan's fresh_buffers_per_trial: new buffers, allocated while the last ones still live so
  // that no address repeats between consecutive trials.
  void renew_buffers(const std::vector<Variant*>& variants) const;
  const ProblemBuffers& buffers() const { return *buffers_; }

  const OpSpec& op_;
  const Problem& problem_;
  mutable const ProblemBuffers* buffers_;
  mutable std::unique_ptr<ProblemBuffers> fresh_;
  cudaStream_t stream_;
};

}  // namespace nb
