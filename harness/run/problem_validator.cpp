#include "harness/run/problem_validator.hpp"

#include <algorithm>
#include <cstdio>

#include "harness/device/device_checks.hpp"
#include "harness/nvtx_ranges.hpp"
#include "harness/run/guarded_launch.hpp"
#include "harness/run/interrupt.hpp"
#include "harness/run/sample_watch.hpp"
#include "harness/stored_value.hpp"
#include "harness/timing/event_timer.hpp"

namespace nb {

ProblemValidator::ProblemValidator(const OpSpec& op, const Problem& problem, const ProblemBuffers& buffers,
                                   cudaStream_t stream)
    : op_(op), problem_(problem), buffers_(&buffers), stream_(stream) {}

void ProblemValidator::renew_buffers(const std::vector<Variant*>& variants) const {
  auto next = std::make_unique<ProblemBuffers>(ProblemBuffers::allocate(op_, problem_, variants, buffers_->placement));
  fresh_ = std::move(next);
  buffers_ = fresh_.get();
}

namespace {

std::string seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f s", s);
  return buf;
}

// What one trial's shared phases and its variants took: " (device reference; draw 0.01 s, ...)".
std::string trial_seconds(const ProblemPhases& before, const ProblemPhases& after, int variants, double variants_s) {
  return " (" + after.reference + " reference; draw " + seconds(after.draw_s - before.draw_s) + ", reference " +
         seconds(after.reference_s - before.reference_s) + ", audit copies " +
         seconds(after.audit_gather_s - before.audit_gather_s) + ", the last audit waited for " +
         seconds(after.audit_wait_s - before.audit_wait_s) + ", " + std::to_string(variants) + " variants " +
         seconds(variants_s) + ")";
}

StressDistribution stress_of(const OpSpec& op, const Problem& p, Distribution d) {
  for (const auto& s : op.stress(p))
    if (s.distribution == d) return s;
  return {d, ""};
}

// One of normbench's naive kernels: one trial per distribution (ValidationPlan::trials_for).
bool is_own_naive(const Variant& v) { return v.kind() == "naive" && v.external() == nullptr; }

bool claims(const Variant& v, Distribution d) {
  const auto c = v.claims();
  return std::find(c.begin(), c.end(), d) != c.end();
}

std::unique_ptr<TrialReference> make_reference(const OpSpec& op, const Problem& p, const std::vector<TensorDecl>& decls,
                                               const ValidationPlan& plan, cudaStream_t stream) {
  if (plan.device_reference) return make_device_trial_reference(op, p, decls, stream, plan.audit);
  return make_host_trial_reference(op, p, decls, stream, plan.why_host);
}

}  // namespace

ProblemPhases ProblemValidator::run(const ValidationPlan& plan, const std::vector<Variant*>& variants,
                                    std::vector<CaseOutcome>& outcomes, const ProgressNote& note) const {
  ProblemPhases phases;
  phases.problem = problem_.id();
  const Tolerance base = op_.tolerance(problem_);
  for (std::size_t k = 0; k < variants.size(); ++k) outcomes[k].validation.tolerance = base;
  const std::vector<TensorDecl> decls = buffers().decls;
  std::unique_ptr<TrialReference> reference = make_reference(op_, problem_, decls, plan, stream_);
  phases.reference = reference->summary().computed_on;
  const auto record_reference = [&] {
    for (auto& o : outcomes) o.validation.reference = reference->summary();
  };
  // The device reference and Eigen disagree: no verdict of the problem stands.
  const auto disagree = [&](const ReferenceDisagreement& e) {
    record_reference();
    for (auto& o : outcomes)
      if (o.runnable()) o.fail(std::string(kReferenceDisagreement) + ": " + e.what());
    note(std::string(kReferenceDisagreement) + ": " + e.what());
  };
  for (std::size_t d = 0; d < plan.distributions.size(); ++d) {
    const Distribution dist = plan.distributions[d];
    const StressDistribution stress = stress_of(op_, problem_, dist);
    std::vector<DistributionVerdict> verdicts(variants.size());
    for (std::size_t k = 0; k < variants.size(); ++k) {
      verdicts[k].distribution = dist;
      verdicts[k].stress_reason = stress.reason;
      verdicts[k].counts = stress.reason.empty() || claims(*variants[k], dist);
    }
    // The trials of this distribution each variant gets: all, until its first launch says otherwise.
    std::vector<int> trials(variants.size(), plan.trials);
    for (int t = 0; t < plan.trials; ++t) {
      if (interrupt_requested()) throw RunInterrupted{};
      const auto wants_trial = [&](std::size_t k) { return outcomes[k].runnable() && t < trials[k]; };
      int wanted = 0;
      for (std::size_t k = 0; k < variants.size(); ++k) wanted += wants_trial(k);
      if (t > 0 && wanted == 0) break;  // the slow variants had their one trial; no other is left
      const std::uint64_t seed = plan.seed(d, t);
      if (plan.fresh_buffers_per_trial) renew_buffers(variants);
      const ProblemPhases before = phases;
      try {
        reference->prepare(buffers(), dist, seed, phases);
      } catch (const ReferenceDisagreement& e) {
        disagree(e);
        return phases;
      }
      Stopwatch clock;
      const std::vector<std::uint64_t> hashes = buffers().input_hashes(stream_);
      phases.upload_s += clock.lap();
      const double worst_condition = reference->tolerances().worst_condition;
      const double worst_amplification = reference->tolerances().worst_amplification;
      double variants_s = 0;
      for (std::size_t k = 0; k < variants.size(); ++k) {
        if (!wants_trial(k)) continue;
        if (interrupt_requested()) throw RunInterrupted{};
        outcomes[k].validation.condition = std::max(outcomes[k].validation.condition, worst_condition);
        outcomes[k].validation.operand_amplification =
            std::max(outcomes[k].validation.operand_amplification, worst_amplification);
        const int payload = stored::poison_payload(static_cast<std::int64_t>(d) * plan.trials + t);
        validate_one(*variants[k], *reference, seed, payload, hashes, outcomes[k], verdicts[k]);
        if (t == 0) trials[k] = plan.trials_for(outcomes[k].validation.launch_ms_estimate, is_own_naive(*variants[k]));
        const double own = clock.lap();
        outcomes[k].phases.add_validation(dist, own);
        variants_s += own;
      }
      note("validated " + distribution_name(dist) + " trial " + std::to_string(t + 1) + "/" +
           std::to_string(plan.trials) + trial_seconds(before, phases, wanted, variants_s));
    }
    for (std::size_t k = 0; k < variants.size(); ++k)
      if (outcomes[k].runnable()) outcomes[k].validation.distributions.push_back(verdicts[k]);
  }
  try {
    reference->settle(phases);
  } catch (const ReferenceDisagreement& e) {
    disagree(e);
    return phases;
  }
  record_reference();
  for (std::size_t k = 0; k < variants.size(); ++k)
    if (outcomes[k].runnable()) outcomes[k].validation.conclude(plan.strict);
  return phases;
}

void ProblemValidator::validate_one(Variant& variant, TrialReference& reference, std::uint64_t seed, int payload,
                                    const std::vector<std::uint64_t>& input_hashes, CaseOutcome& outcome,
                                    DistributionVerdict& verdict) const {
  const std::string name = nvtx_case_name(op_.name(), variant.name(), problem_.id());
  bool launched = guarded(outcome, name, [&] {
    reference.reset_inouts();
    buffers().poison_outputs(stream_, payload);
    buffers().scribble_workspace(stream_, payload);
    NvtxRange range(name);
    NvtxRange phase("validate");
    EventTimer timer(stream_);
    outcome.validation.launch_ms_estimate = timer.time_ms([&] {
      variant.launch(problem_, buffers().tensors, buffers().workspace.get(), stream_);
    });
  });
  if (!launched) return;
  flag_persisting_l2(outcome, stream_, "after a validated launch");
  const bool modified = buffers().input_hashes(stream_) != input_hashes;
  const TrialJudgement judgement = reference.judge(modified);
  // A kernel that wrote its inputs must not spoil the next variant's trial.
  if (modified) reference.restore_inputs();
  verdict.add_trial(seed, judgement);
}

}  // namespace nb
