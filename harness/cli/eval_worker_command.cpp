// The worker side of normbench eval: a process of its own per case, so that whatever the
// candidate does to it (an illegal address that destroys the CUDA context, a segfault, a hang)
// ends this process and not the run. It validates and times the case with the harness's own
// runner, with the checks for untrusted code switched on (fresh buffers per trial, the recheck
// after the timed loop, the allocation watch), and writes the outcome as JSON.
#include <benchmark/benchmark.h>

#include <cstdio>

#include "harness/candidate/alloc_watch.hpp"
#include "harness/candidate/candidate_variant.hpp"
#include "harness/candidate/outcome_json.hpp"
#include "harness/cli/eval_commands.hpp"
#include "harness/errors.hpp"
#include "harness/report/atomic_write.hpp"
#include "harness/report/case_metrics.hpp"

namespace nb {
namespace {

void write_result(const std::string& path, const nlohmann::json& j) { write_file_atomically(path, j.dump(1)); }

CaseOutcome run_candidate_case(const Registry& registry, const EvalWorkerCommand& c) {
  const OpSpec& op = registry.op(c.op);
  const Problem problem = op.parse_problem_id(c.problem);
  CandidateVariant variant(c.name, CandidateLibrary::open(c.library), op,
                           {c.source, c.sha256, c.compile_command, c.library});
  RunOptions options = c.options;
  options.measure_copy_ceiling = false;
  options.time_compute_ceilings = false;
  options.recheck_after_timing = true;
  options.validation.fresh_buffers_per_trial = true;
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
    outcome.flags.push_back(kFlagAllocatesInLaunch);
    std::fprintf(stderr, "normbench eval-worker: %ld allocation call(s) in launch, the first %s\n",
                 variant.allocations_in_launch(), variant.first_allocation().c_str());
  }
  outcome.containment = "completed";
  return outcome;
}

}  // namespace

int eval_worker_command(const Registry& registry, const EvalWorkerCommand& c) {
  try {
    if (c.probe) {
      CandidateLibrary::open(c.library);
      write_result(c.result, {{"probe", "ok"}});
      return kExitOk;
    }
    write_result(c.result, {{"outcome", outcome_to_json(run_candidate_case(registry, c))}});
    return kExitOk;
  } catch (const UsageError& e) {
    write_result(c.result, {{"usage_error", e.what()}});
    return kExitUsage;
  } catch (const std::exception& e) {
    write_result(c.result, {{"fatal", e.what()}});
    return kExitDevice;
  }
}

}  // namespace nb
