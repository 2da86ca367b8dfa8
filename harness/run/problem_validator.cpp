#include "harness/run/problem_validator.hpp"

#include <algorithm>
#include <cstdio>

#include "harness/device/device_checks.hpp"
#include "harness/host_memory.hpp"
#include "harness/nvtx_ranges.hpp"
#include "harness/run/guarded_launch.hpp"
#include "harness/run/interrupt.hpp"
#include "harness/timing/event_timer.hpp"
#include "harness/validation/trial_tolerance.hpp"

namespace nb {

struct ProblemValidator::Trial {
  std::uint64_t seed = 0;
  HostTensors inputs;
  ReferenceTensors reference;
  std::vector<Tolerance> tolerances;  // per tensor: base x condition x reduction growth
  double worst_condition = 1;
  std::vector<std::uint64_t> input_hashes;
};

ProblemValidator::ProblemValidator(const OpSpec& op, const Problem& problem, const ProblemBuffers& buffers,
                                   cudaStream_t stream)
    : op_(op), problem_(problem), buffers_(&buffers), stream_(stream) {}

void ProblemValidator::renew_buffers(const std::vector<Variant*>& variants) const {
  auto next = std::make_unique<ProblemBuffers>(ProblemBuffers::allocate(op_, problem_, variants));
  fresh_ = std::move(next);
  buffers_ = fresh_.get();
}

std::vector<std::uint64_t> ProblemValidator::hash_inputs() const {
  return buffers().input_hashes(stream_);
}

namespace {

std::string seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f s", s);
  return buf;
}

StressDistribution stress_of(const OpSpec& op, const Problem& p, Distribution d) {
  for (const auto& s : op.stress(p))
    if (s.distribution == d) return s;
  return {d, ""};
}

bool claims(const Variant& v, Distribution d) {
  const auto c = v.claims();
  return std::find(c.begin(), c.end(), d) != c.end();
}

}  // namespace

ProblemPhases ProblemValidator::run(const ValidationPlan& plan, const std::vector<Variant*>& variants,
                                    std::vector<CaseOutcome>& outcomes, const ProgressNote& note) const {
  ProblemPhases phases;
  phases.problem = problem_.id();
  phases.reference = "host";
  const Tolerance base = op_.tolerance(problem_);
  for (std::size_t k = 0; k < variants.size(); ++k) outcomes[k].validation.tolerance = base;
  // Host buffers live for the whole problem: multi-GB vectors are allocated and faulted in once.
  Trial trial;
  trial.inputs = allocate_host_inputs(buffers().decls);
  trial.reference = allocate_references(buffers().decls);
  HostTensors results = allocate_host_results(buffers().decls);
  PinnedRanges pinned;
  for (HostTensors* host : {&trial.inputs, &results})
    for (auto& values : host->data) pinned.pin(values.data(), values.size() * sizeof(float));
  for (std::size_t d = 0; d < plan.distributions.size(); ++d) {
    const Distribution dist = plan.distributions[d];
    const StressDistribution stress = stress_of(op_, problem_, dist);
    std::vector<DistributionVerdict> verdicts(variants.size());
    for (std::size_t k = 0; k < variants.size(); ++k) {
      verdicts[k].distribution = dist;
      verdicts[k].stress_reason = stress.reason;
      verdicts[k].counts = stress.reason.empty() || claims(*variants[k], dist);
    }
    for (int t = 0; t < plan.trials; ++t) {
      if (interrupt_requested()) throw RunInterrupted{};
      Stopwatch clock;
      trial.seed = plan.seed(d, t);
      draw_stored_inputs(op_, problem_, buffers().decls, dist, trial.seed, trial.inputs);
      const double draw_s = clock.lap();
      trial.reference.condition = 1.0;
      op_.reference(problem_, trial.inputs, trial.reference);
      trial.reference.rms.clear();
      for (const auto& values : trial.reference.data) trial.reference.rms.push_back(finite_rms(values));
      const double reference_s = clock.lap();
      if (plan.fresh_buffers_per_trial) renew_buffers(variants);
      const TrialTolerances tolerances = trial_tolerances(op_, problem_, buffers().decls, trial.inputs, trial.reference);
      trial.tolerances = tolerances.per_tensor;
      trial.worst_condition = tolerances.worst_condition;
      buffers().upload(trial.inputs, {TensorRole::input}, stream_);
      trial.input_hashes = hash_inputs();
      const double upload_s = clock.lap();
      phases.draw_s += draw_s, phases.reference_s += reference_s, phases.upload_s += upload_s;
      double variants_s = 0;
      for (std::size_t k = 0; k < variants.size(); ++k) {
        if (!outcomes[k].runnable()) continue;
        if (interrupt_requested()) throw RunInterrupted{};
        outcomes[k].validation.condition = std::max(outcomes[k].validation.condition, trial.worst_condition);
        validate_one(*variants[k], trial, results, outcomes[k], verdicts[k]);
        const double own = clock.lap();
        outcomes[k].phases.add_validation(dist, own);
        variants_s += own;
      }
      note("validated " + distribution_name(dist) + " trial " + std::to_string(t + 1) + "/" +
           std::to_string(plan.trials) + " (draw " + seconds(draw_s) + ", reference " + seconds(reference_s) +
           ", upload " + seconds(upload_s) + ", " + std::to_string(variants.size()) + " variants " +
           seconds(variants_s) + ")");
    }
    for (std::size_t k = 0; k < variants.size(); ++k)
      if (outcomes[k].runnable()) outcomes[k].validation.distributions.push_back(verdicts[k]);
  }
  for (std::size_t k = 0; k < variants.size(); ++k)
    if (outcomes[k].runnable()) outcomes[k].validation.conclude();
  return phases;
}

void ProblemValidator::validate_one(Variant& variant, const Trial& trial, HostTensors& results, CaseOutcome& outcome,
                                    DistributionVerdict& verdict) const {
  const std::string name = nvtx_case_name(op_.name(), variant.name(), problem_.id());
  bool launched = guarded(outcome, name, [&] {
    buffers().upload(trial.inputs, {TensorRole::inout}, stream_);
    buffers().poison_outputs(stream_);
    NvtxRange range(name);
    NvtxRange phase("validate");
    EventTimer timer(stream_);
    outcome.validation.launch_ms_estimate = timer.time_ms([&] {
      variant.launch(problem_, buffers().tensors, buffers().workspace.get(), stream_);
    });
    buffers().download_results(results, stream_);
  });
  if (!launched) return;
  const bool modified = hash_inputs() != trial.input_hashes;
  // A kernel that wrote its inputs must not spoil the next variant's trial.
  if (modified) buffers().upload(trial.inputs, {TensorRole::input}, stream_);
  const auto tolerance_of = [&](int i) { return trial.tolerances.at(static_cast<std::size_t>(i)); };
  verdict.add_trial(trial.seed, judge_trial(buffers().decls, results, trial.reference, tolerance_of, modified));
}

}  // namespace nb
