// The worker side of normbench eval: a process of its own per case, so that whatever the
// candidate does to it (an illegal address that destroys the CUDA context, a segfault, a hang)
// ends this process and not the run. It validates and times the case with the harness's own
// runner, with the checks for untrusted code switched on (fresh buffers per trial, the recheck
// after the timed loop, the allocation watch), validates the problem's hidden odd sibling, and
// sends its messages to the parent (harness/candidate/worker_protocol.hpp).
#include <benchmark/benchmark.h>

#include <cstdio>

#include "harness/candidate/alloc_watch.hpp"
#include "harness/candidate/candidate_variant.hpp"
#include "harness/candidate/outcome_json.hpp"
#include "harness/candidate/worker_protocol.hpp"
#include "harness/cli/eval_commands.hpp"
#include "harness/errors.hpp"
#include "harness/odd_sibling.hpp"
#include "harness/run/problem_validator.hpp"

namespace nb {
namespace {

RunOptions worker_options(const EvalWorkerCommand& c, const ParentChannel& channel) {
  RunOptions options = c.options;
  options.measure_copy_ceiling = false;
  options.time_compute_ceilings = false;
  options.recheck_after_timing = true;
  options.validation.fresh_buffers_per_trial = true;
  options.mark_samples = [&channel](const char* phase) { channel.send({{"phase", phase}}); };
  return options;
}

CaseOutcome run_candidate_case(const OpSpec& op, CandidateVariant& variant, const Problem& problem,
                               const RunOptions& options) {
  if (!options.validate_only) {
    int argc = 1;
    char name[] = "normbench";
    char* argv[] = {name, nullptr};
    benchmark::Initialize(&argc, argv);
  }
  if (!AllocWatch::available())
    std::fprintf(stderr, "normbench eval-worker: allocation interposer not loaded: allocations in launch go unseen\n");
  RunRecord record = run_cases({{&op, &variant, problem, {}}}, options);
  CaseOutcome outcome = record.outcomes.at(0);
  // A lost context ends the worker as a crash: the parent reports the case as crashed.
  if (!record.aborted.empty())
    throw DeviceError(outcome.status == CaseStatus::error ? outcome.reason : record.aborted);
  if (variant.allocations_in_launch() > 0) {
    outcome.add_flag(kFlagAllocatesInLaunch, std::to_string(variant.allocations_in_launch()) +
                                                 " allocation call(s) in launch, the first " + variant.first_allocation());
    std::fprintf(stderr, "normbench eval-worker: %ld allocation call(s) in launch, the first %s\n",
                 variant.allocations_in_launch(), variant.first_allocation().c_str());
  }
  outcome.containment = "completed";
  return outcome;
}

// The hidden sibling, validated only: what the candidate made of it.
HiddenShapeVerdict validate_hidden(const OpSpec& op, CandidateVariant& variant, const Problem& sibling,
                                   RunOptions options) {
  options.validate_only = true;
  options.mark_samples = nullptr;
  options.record_launches = false;  // the sibling is hidden: its kernels are not reported
  const RunRecord record = run_cases({{&op, &variant, sibling, {}}}, options);
  const CaseOutcome& o = record.outcomes.at(0);
  HiddenShapeVerdict v{sibling.id(), "passed", ""};
  if (!record.aborted.empty()) return {sibling.id(), "crashed", record.aborted};
  if (o.status == CaseStatus::skipped) return {sibling.id(), "refused", o.reason};
  if (o.status == CaseStatus::error)
    return {sibling.id(), o.reason.rfind(kReferenceDisagreement, 0) == 0 ? "unverified" : "error", o.reason};
  if (o.status != CaseStatus::ran) return {sibling.id(), "unverified", o.reason};
  if (o.validation.disposition == Disposition::incorrect) {
    v.verdict = "incorrect";
    for (const auto& d : o.validation.distributions)
      if (d.counts && !d.passed) {
        v.detail = distribution_name(d.distribution) + ": " + d.failure;
        break;
      }
  }
  return v;
}

}  // namespace

int eval_worker_command(const Registry& registry, const EvalWorkerCommand& c) {
  ParentChannel channel(c.result_fd);
  try {
    if (c.probe) {
      CandidateLibrary::open(c.library);
      channel.send({{"probe", "ok"}});
      channel.send({{"done", true}});
      channel.close();
      return kExitOk;
    }
    const OpSpec& op = registry.op(c.op);
    const Problem problem = op.parse_problem_id(c.problem);
    CandidateVariant variant(c.name, CandidateLibrary::open(c.library), op,
                             {c.source, c.sha256, c.compile_command, c.library});
    const RunOptions options = worker_options(c, channel);
    const CaseOutcome outcome = run_candidate_case(op, variant, problem, options);
    channel.send({{"outcome", outcome_to_json(outcome)}});
    const auto sibling = outcome.runnable() ? odd_sibling(op, problem) : std::nullopt;
    if (sibling) {
      channel.send({{"hidden_problem", sibling->id()}});
      channel.send({{"hidden_shape", hidden_shape_to_json(validate_hidden(op, variant, *sibling, options))}});
    }
    channel.send({{"done", true}});
    channel.close();
    return kExitOk;
  } catch (const UsageError& e) {
    channel.send({{"usage_error", e.what()}});
    channel.close();
    return kExitUsage;
  } catch (const std::exception& e) {
    channel.send({{"fatal", e.what()}});
    channel.close();
    return kExitDevice;
  }
}

}  // namespace nb
