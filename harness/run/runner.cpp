#include "harness/run/runner.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <numeric>
#include <string>
#include <thread>

#include "harness/cuda_check.hpp"
#include "harness/errors.hpp"
#include "harness/cuda_stream.hpp"
#include "harness/device/nvml_monitor.hpp"
#include "harness/device/persisting_l2.hpp"
#include "harness/launches/launch_capture.hpp"
#include "harness/nvtx_ranges.hpp"
#include "harness/run/context_loss.hpp"
#include "harness/run/guarded_launch.hpp"
#include "harness/run/interrupt.hpp"
#include "harness/run/launch_recording.hpp"
#include "harness/run/memory_footprint.hpp"
#include "harness/run/plan_ahead.hpp"
#include "harness/run/problem_buffers.hpp"
#include "harness/run/problem_validator.hpp"
#include "harness/run/progress.hpp"
#include "harness/run/sample_watch.hpp"
#include "harness/run/timed_recheck.hpp"
#include "harness/run/trial_reference.hpp"

namespace nb {
namespace {

// Cases grouped by problem id, in first-seen order: each group shares one set of buffers.
std::vector<std::vector<std::size_t>> group_by_problem(const std::vector<RunCase>& cases) {
  std::vector<std::vector<std::size_t>> groups;
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    auto [it, fresh] = index.emplace(cases[i].problem.id(), groups.size());
    if (fresh) groups.emplace_back();
    groups[it->second].push_back(i);
  }
  return groups;
}

// Buffers for the problem being timed, filled with uniform01 inputs (drawn on the device where the
// op declares its draws); replaced when the benchmark order moves on to the next problem.
class TimingBuffers {
 public:
  // `seconds` (the problem's timing_inputs_s) gains the time a new set takes.
  explicit TimingBuffers(TensorPlacement placement) : placement_(placement) {}

  const ProblemBuffers& acquire(const RunCase& c, const std::vector<Variant*>& variants, cudaStream_t stream,
                                double* seconds = nullptr) {
    if (!current_ || id_ != c.problem.id()) {
      Stopwatch clock;
      current_.reset();
      current_ = std::make_unique<ProblemBuffers>(ProblemBuffers::allocate(*c.op, c.problem, variants, placement_));
      draw_trial_inputs(*c.op, c.problem, *current_, Distribution::uniform01, 7, stream);
      id_ = c.problem.id();
      if (seconds) *seconds += clock.lap();
    }
    return *current_;
  }

 private:
  TensorPlacement placement_;
  std::string id_;
  std::unique_ptr<ProblemBuffers> current_;
};

std::vector<Variant*> variants_of(const RunRecord& r, const std::vector<std::size_t>& group) {
  std::vector<Variant*> v;
  for (std::size_t i : group) v.push_back(r.cases[i].variant);
  return v;
}

std::vector<CaseOutcome> outcomes_of(const RunRecord& r, const std::vector<std::size_t>& group) {
  std::vector<CaseOutcome> o;
  for (std::size_t i : group) o.push_back(r.outcomes[i]);
  return o;
}

void store_outcomes(RunRecord& r, const std::vector<std::size_t>& group, std::vector<CaseOutcome>& outcomes) {
  for (std::size_t k = 0; k < group.size(); ++k) r.outcomes[group[k]] = std::move(outcomes[k]);
}

// Skips or prepares every case of one problem (all of a group share its problem).
void prepare_group(RunRecord& r, const std::vector<std::size_t>& group) {
  std::vector<CaseOutcome> outcomes = outcomes_of(r, group);
  const Problem& problem = r.cases[group.front()].problem;
  r.phases_of(problem.id()).plans = prepare_variants(problem, variants_of(r, group), outcomes, r.options.plan_cache);
  store_outcomes(r, group, outcomes);
}

// Why the problem cannot be validated and timed in the memory that is free now, or nullopt.
std::optional<std::string> memory_shortfall(const RunRecord& r, const RunCase& first, const std::vector<Variant*>& variants,
                                            bool device_reference) {
  FootprintInputs in;
  in.decls = first.op->tensors(first.problem);
  for (Variant* v : variants) in.workspace_bytes = std::max(in.workspace_bytes, v->workspace_bytes(first.problem));
  const bool timed = !r.options.validate_only && !r.options.profile;
  in.flush_bytes = timed ? 2 * (r.provenance.gpu.l2_bytes ? r.provenance.gpu.l2_bytes : (64u << 20)) : 0;
  in.fresh_buffers_per_trial = r.options.validation.fresh_buffers_per_trial;
  in.device_reference = device_reference;
  std::size_t free_device = 0, total_device = 0;
  if (cudaMemGetInfo(&free_device, &total_device) != cudaSuccess) {
    cudaGetLastError();
    return std::nullopt;  // unknown: try, and let an allocation failure speak
  }
  return why_it_does_not_fit(estimate_footprint(in), static_cast<double>(free_device), host_memory_available());
}

// Where the problem's reference runs ("" for the device, else why the host), and why the problem
// does not fit in memory even so (nullopt: it fits).
struct ReferenceFit {
  std::string why_host;
  std::optional<std::string> shortfall;
};

ReferenceFit fit_reference(const RunRecord& r, const RunCase& first, const std::vector<Variant*>& variants) {
  ReferenceFit fit;
  fit.why_host = r.options.validation.reference == ReferencePlace::host ? "--reference host"
                                                                        : why_no_device_reference(*first.op, first.problem);
  fit.shortfall = memory_shortfall(r, first, variants, fit.why_host.empty());
  if (fit.why_host.empty() && fit.shortfall) {
    fit.why_host = "the device reference " + *fit.shortfall;
    fit.shortfall = memory_shortfall(r, first, variants, false);
  }
  return fit;
}

// Marks the group's cases that are still runnable: failed (error) or not run.
void settle_runnable(std::vector<CaseOutcome>& outcomes, CaseStatus status, const std::string& why) {
  for (CaseOutcome& o : outcomes) {
    if (!o.runnable()) continue;
    o.validation = {};
    if (status == CaseStatus::error) o.fail(why);
    else if (status == CaseStatus::skipped) o.skip(why);
    else o.not_run(why);
  }
}

// Validates one problem's cases. An allocation that fails (device or host) makes its cases
// errors and the run goes on; a lost CUDA context throws ContextLost; an interrupt throws RunInterrupted.
void validate_group(RunRecord& r, const std::vector<std::size_t>& group, cudaStream_t stream, Progress& progress,
                    PlanAhead& ahead) {
  const RunCase& first = r.cases[group.front()];
  std::vector<Variant*> variants = variants_of(r, group);
  std::vector<CaseOutcome> outcomes = outcomes_of(r, group);
  try {
    Stopwatch clock;
    r.phases_of(first.problem.id()).plans =
        prepare_variants(first.problem, variants, outcomes, r.options.plan_cache, &ahead);
    const ReferenceFit fit = fit_reference(r, first, variants);
    if (fit.shortfall) {
      progress.note("skipped: " + *fit.shortfall);
      settle_runnable(outcomes, CaseStatus::skipped, *fit.shortfall);
    } else {
      ProblemBuffers buffers = ProblemBuffers::allocate(*first.op, first.problem, variants, r.options.placement);
      ValidationPlan plan = plan_validation(buffers.decls, r.options.validation, fit.why_host);
      const double prepare_s = clock.lap();
      const ProblemValidator validator(*first.op, first.problem, buffers, stream);
      ProblemPhases phases = validator.run(plan, variants, outcomes, [&](const std::string& s) { progress.note(s); });
      if (r.options.record_launches) record_launches(first.problem, variants, outcomes, validator.buffers(), stream);
      else mark_launches_not_recorded(outcomes, kLaunchesOff);
      phases.prepare_s = prepare_s;
      phases.plans = std::move(r.phases_of(first.problem.id()).plans);
      r.phases_of(first.problem.id()) = std::move(phases);
    }
  } catch (const RunInterrupted&) {
    settle_runnable(outcomes, CaseStatus::not_run, "interrupted before its validation finished");
    store_outcomes(r, group, outcomes);
    throw;
  } catch (const std::bad_alloc&) {
    settle_runnable(outcomes, CaseStatus::error, "host memory allocation failed (std::bad_alloc)");
  } catch (const DeviceError& e) {
    if (auto lost = cuda_context_lost()) {
      settle_runnable(outcomes, CaseStatus::not_run, "the CUDA context was lost before its validation finished");
      store_outcomes(r, group, outcomes);
      throw ContextLost{std::string(e.what())};
    }
    settle_runnable(outcomes, CaseStatus::error, e.what());
  }
  store_outcomes(r, group, outcomes);
}

// The cases whose library plans can be built ahead, in the validation's order: those of variants
// that use the plan cache and support their problem. None without a plan cache to hand plans over.
std::vector<PlanAheadTask> plan_ahead_tasks(const RunRecord& r, const std::vector<std::vector<std::size_t>>& groups) {
  std::vector<PlanAheadTask> tasks;
  if (!r.options.plan_cache.enabled() || r.options.plan_threads == 0) return tasks;
  for (const auto& group : groups)
    for (std::size_t i : group) {
      const RunCase& c = r.cases[i];
      auto* planner = dynamic_cast<UsesPlanCache*>(c.variant);
      if (planner && c.variant->supports(c.problem).ok) tasks.push_back({&c.problem, planner, c.variant->name()});
    }
  return tasks;
}

// Validates every problem, the library plans built ahead meanwhile; the plan threads' stats.
PlanAheadStats validate_all(RunRecord& r, const std::vector<std::vector<std::size_t>>& groups, cudaStream_t stream,
                            Progress& progress) {
  std::vector<PlanAheadTask> tasks = plan_ahead_tasks(r, groups);
  const int threads = r.options.plan_threads < 0 ? default_plan_threads(std::thread::hardware_concurrency(), tasks.size())
                                                 : r.options.plan_threads;
  PlanAhead ahead(std::move(tasks), r.options.plan_cache, threads, PlanAhead::on_device(r.options.device));
  progress.set_total(static_cast<int>(groups.size()));
  // The first problem in order whose plans are all settled goes next, so the validation does not
  // stand waiting for a plan thread while other problems could run (a cuDNN RMSNorm plan for a row
  // of 2^19 took ~25 s to build; the quick suite's validation waited 10-17 s for them in order).
  // When none is, it waits for the next plan to be done, or, with none being built, takes the
  // first (whose plans are then built in turn).
  std::vector<std::string> ids;
  for (const auto& group : groups) ids.push_back(r.cases[group.front()].problem.id());
  std::vector<std::size_t> pending(groups.size());
  std::iota(pending.begin(), pending.end(), std::size_t(0));
  int started = 0;
  while (!pending.empty()) {
    if (interrupt_requested()) throw RunInterrupted{};
    auto next = std::find_if(pending.begin(), pending.end(), [&](std::size_t g) { return ahead.ready(ids[g]); });
    if (next == pending.end()) {
      if (ahead.wait_for_any()) continue;
      next = pending.begin();
    }
    const std::size_t g = *next;
    pending.erase(next);
    progress.begin(++started, ids[g]);
    validate_group(r, groups[g], stream, progress, ahead);
  }
  return ahead.finish();
}

struct TimingContext {
  RunRecord& record;
  cudaStream_t stream;
  L2Flusher& flusher;
  NvmlMonitor& nvml;
  TimingBuffers buffers;
};

// The benchmark loop: one flushed, event-timed launch per iteration.
// An interrupt abandons the loop after the current sample.
void sample_into(benchmark::State& state, CaseTimer& timer, std::vector<double>& samples_ms) {
  for (auto _ : state) {
    if (interrupt_requested()) {
      state.SkipWithError("interrupted");
      break;
    }
    const double ms = timer.sample_ms();
    state.SetIterationTime(ms * 1e-3);
    samples_ms.push_back(ms);
  }
}

void time_case(benchmark::State& state, TimingContext& ctx, std::size_t index, const std::vector<Variant*>& peers) {
  RunCase& c = ctx.record.cases[index];
  CaseOutcome& outcome = ctx.record.outcomes[index];
  if (interrupt_requested()) {
    state.SkipWithError("interrupted");
    return;  // not timed: marked not_run when the run ends
  }
  try {
    c.variant->prepare(c.problem);  // launches use the last prepared problem: this one
    const ProblemBuffers& b =
        ctx.buffers.acquire(c, peers, ctx.stream, &ctx.record.phases_of(c.problem.id()).timing_inputs_s);
    Stopwatch clock;
    CaseTimer timer([&] { c.variant->launch(c.problem, b.tensors, b.workspace.get(), ctx.stream); }, ctx.flusher,
                    ctx.stream);
    timer.warm_up(ctx.record.options.samples.warm_ups_for(outcome.validation.launch_ms_estimate));
    SampleWatch watch(b, static_cast<int>(state.max_iterations), ctx.stream);
    watch.start(timer, outcome);
    TimingResult& t = outcome.timing ? *outcome.timing : outcome.timing.emplace();
    t.sm_clock_before_mhz = ctx.nvml.sm_clock_mhz();
    const BoardCounters counters_before = ctx.nvml.counters();
    const auto samples_begin = std::chrono::steady_clock::now();
    {
      NvtxRange range(c.nvtx_name());
      NvtxRange phase("timed");
      const auto& mark = ctx.record.options.mark_samples;
      if (mark) mark("samples_begin");
      sample_into(state, timer, t.samples_ms);
      if (mark) mark("samples_end");
    }
    if (ctx.nvml.available()) {
      const std::chrono::duration<double, std::milli> window = std::chrono::steady_clock::now() - samples_begin;
      t.board = board_window(counters_before, ctx.nvml.counters(), window.count());
    }
    if (interrupt_requested()) {
      outcome.timing.reset();
      return;
    }
    watch.conclude(timer, outcome);
    t.sm_clock_after_mhz = ctx.nvml.sm_clock_mhz();
    t.throttle_reasons = ctx.nvml.throttle_reasons();
    outcome.phases.timing_s += clock.lap();
    const double median = summarize(t.samples_ms).median;
    const WallBracket bracket = timer.wall_bracket(ctx.record.options.samples.bracket_launches(median), median);
    t.wall_ms_per_launch = bracket.wall_ms;
    t.submit_ms_per_launch = bracket.submit_ms;
    outcome.phases.bracket_s += clock.lap();
    if (ctx.record.options.recheck_after_timing) {
      ValidationResult& v = outcome.validation;
      v.after_timing = recheck_after_timing(c, b, ctx.stream, v.distributions.size() * 1000 + 99991);
      if (!v.after_timing->passed) v.disposition = Disposition::incorrect;
      outcome.phases.recheck_s += clock.lap();
    }
    const double bytes = c.op->work(c.problem).bytes;
    state.SetBytesProcessed(static_cast<std::int64_t>(bytes) * state.iterations());
  } catch (const std::exception& e) {
    outcome.timing.reset();
    outcome.fail(std::string("timing: ") + e.what());
    state.SkipWithError(e.what());
    if (cuda_context_lost()) throw ContextLost{c.name() + ": " + e.what()};
  }
}

// The problem's compute ceiling (OpSpec::ceiling_kernel), timed on the problem's own buffers
// with the same flush and loop as its cases; it is recorded only when every sample ran.
void time_ceiling(benchmark::State& state, TimingContext& ctx, std::size_t first_case, Variant& kernel,
                  const std::vector<Variant*>& peers) {
  const RunCase& c = ctx.record.cases[first_case];
  if (interrupt_requested()) {
    state.SkipWithError("interrupted");
    return;
  }
  try {
    kernel.prepare(c.problem);
    ProblemPhases& phases = ctx.record.phases_of(c.problem.id());
    const ProblemBuffers& b = ctx.buffers.acquire(c, peers, ctx.stream, &phases.timing_inputs_s);
    Stopwatch clock;
    CaseTimer timer([&] { kernel.launch(c.problem, b.tensors, b.workspace.get(), ctx.stream); }, ctx.flusher,
                    ctx.stream);
    timer.warm_up(3);
    ComputeCeiling ceiling{c.problem.id(), c.problem.dtype, kernel.name(), kernel.idea(), 0, {}};
    std::vector<double> samples;
    {
      NvtxRange range(nvtx_case_name(c.op->name(), kernel.name(), c.problem.id()));
      NvtxRange phase("timed");
      sample_into(state, timer, samples);
    }
    ceiling.flops = c.op->work(c.problem).flops;
    ceiling.stats = summarize(samples);
    ctx.record.compute_ceilings.push_back(std::move(ceiling));
    phases.ceiling_s += clock.lap();
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    if (cuda_context_lost()) throw ContextLost{"ceiling " + kernel.name() + ": " + e.what()};
  }
}

void time_all(RunRecord& r, const std::vector<std::vector<std::size_t>>& groups, cudaStream_t stream,
              L2Flusher& flusher, NvmlMonitor& nvml) {
  TimingContext ctx{r, stream, flusher, nvml, TimingBuffers(r.options.placement)};
  std::vector<std::unique_ptr<Variant>> ceilings;  // alive until the benchmarks have run
  for (const auto& group : groups) {
    std::vector<Variant*> peers = variants_of(r, group);
    const RunCase& first = r.cases[group.front()];
    std::unique_ptr<Variant> ceiling =
        r.options.time_compute_ceilings ? first.op->ceiling_kernel(first.problem) : nullptr;
    const bool any_runnable =
        std::any_of(group.begin(), group.end(), [&](std::size_t i) { return r.outcomes[i].runnable(); });
    if (ceiling && any_runnable) {
      Variant* kernel = ceiling.get();
      peers.push_back(kernel);
      // The GEMM alone takes at most the fastest pipeline's time: sample it as that case is sampled.
      const std::size_t index = group.front();
      double fastest = 0;
      for (std::size_t i : group)
        if (r.outcomes[i].runnable() && (fastest == 0 || r.outcomes[i].validation.launch_ms_estimate < fastest))
          fastest = r.outcomes[i].validation.launch_ms_estimate;
      const int samples = r.options.samples.samples_for(fastest);
      benchmark::RegisterBenchmark(("ceiling/" + kernel->name() + "/" + first.problem.id()).c_str(),
                                   [&ctx, index, kernel, peers](benchmark::State& s) {
                                     time_ceiling(s, ctx, index, *kernel, peers);
                                   })
          ->UseManualTime()
          ->Iterations(samples)
          ->Unit(benchmark::kMillisecond);
      ceilings.push_back(std::move(ceiling));
    }
    for (std::size_t i : group) {
      if (!r.outcomes[i].runnable()) continue;
      const int samples = r.options.samples.samples_for(r.outcomes[i].validation.launch_ms_estimate);
      benchmark::RegisterBenchmark(r.cases[i].name().c_str(),
                                   [&ctx, i, peers](benchmark::State& s) { time_case(s, ctx, i, peers); })
          ->UseManualTime()
          ->Iterations(samples)
          ->Unit(benchmark::kMillisecond);
    }
  }
  try {
    benchmark::RunSpecifiedBenchmarks();
  } catch (...) {
    benchmark::ClearRegisteredBenchmarks();
    throw;
  }
  benchmark::ClearRegisteredBenchmarks();
  for (auto& o : r.outcomes)
    if (o.timing && !o.timing->samples_ms.empty()) o.timing->stats = summarize(o.timing->samples_ms);
}

void profile_all(RunRecord& r, const std::vector<std::vector<std::size_t>>& groups, cudaStream_t stream) {
  for (const auto& group : groups) {
    prepare_group(r, group);
    std::vector<Variant*> peers = variants_of(r, group);
    TimingBuffers buffers(r.options.placement);
    for (std::size_t i : group) {
      if (!r.outcomes[i].runnable()) continue;
      const RunCase& c = r.cases[i];
      const ProblemBuffers& b = buffers.acquire(c, peers, stream);
      guarded(r.outcomes[i], c.name(), [&] {
        NvtxRange range(c.nvtx_name());
        NvtxRange phase("timed");
        c.variant->launch(c.problem, b.tensors, b.workspace.get(), stream);
        NB_CUDA_CHECK(cudaStreamSynchronize(stream));
      });
    }
    std::vector<CaseOutcome> outcomes = outcomes_of(r, group);
    mark_launches_not_recorded(outcomes, kLaunchesNotInProfileMode);
    store_outcomes(r, group, outcomes);
  }
}

}  // namespace

const ComputeCeiling* RunRecord::compute_ceiling_of(const std::string& problem_id) const {
  for (const auto& c : compute_ceilings)
    if (c.problem_id == problem_id) return &c;
  return nullptr;
}

ProblemPhases& RunRecord::phases_of(const std::string& problem_id) {
  for (auto& p : problem_phases)
    if (p.problem == problem_id) return p;
  problem_phases.push_back({});
  problem_phases.back().problem = problem_id;
  return problem_phases.back();
}

PhaseTotals RunRecord::phase_totals() const {
  std::vector<CasePhases> cases;
  for (const auto& o : outcomes) cases.push_back(o.phases);
  return sum_phases(phases, problem_phases, cases);
}

// Every case the run did not finish (not validated, or validated but not timed) becomes not_run.
void mark_unfinished_not_run(RunRecord& r, const std::string& why) {
  for (CaseOutcome& o : r.outcomes) {
    if (o.status != CaseStatus::ran) continue;
    const bool validated = !o.validation.distributions.empty();
    const bool timed = o.timing && !o.timing->samples_ms.empty();
    if (validated && (r.options.validate_only || timed)) continue;
    std::string note = why;
    if (validated)
      note += " (validated: " + std::string(disposition_name(o.validation.disposition)) + "; not timed)";
    o.timing.reset();
    o.not_run(note);
  }
}

RunRecord run_cases(std::vector<RunCase> cases, const RunOptions& options) {
  RunRecord r;
  r.options = options;
  r.cases = std::move(cases);
  r.outcomes.resize(r.cases.size());
  Stopwatch total, clock;
  GpuInfo gpu = query_gpu(options.device);
  r.provenance = collect_provenance(gpu, options.command_line);
  CudaStream stream;
  reset_persisting_l2(stream.get());  // every variant starts without persisting L2 lines
  const auto groups = group_by_problem(r.cases);
  try {
    if (options.profile) {
      profile_all(r, groups, stream.get());
    } else {
      Progress progress(options.progress);
      NvmlMonitor nvml(gpu.device);
      r.phases.setup_s = clock.lap();
      if (options.measure_copy_ceiling) r.ceiling = measure_bandwidth_ceiling(gpu, stream.get());
      r.phases.copy_ceiling_s = clock.lap();
      r.phases.plans_ahead = validate_all(r, groups, stream.get(), progress);
      end_launch_capture();  // CUPTI detached: nothing of it stays while the cases are timed
      r.phases.validation_s = clock.lap();
      if (!options.validate_only) {
        L2Flusher flusher(gpu.l2_bytes);
        r.l2_flush_bytes = flusher.bytes();
        time_all(r, groups, stream.get(), flusher, nvml);
      }
      r.phases.timing_s = clock.lap();
    }
  } catch (const RunInterrupted&) {
  } catch (const ContextLost& lost) {
    r.aborted = "the CUDA context was lost: " + lost.why;
  } catch (const DeviceError& e) {  // outside any case (the ceiling, the flush buffer): nothing more can run
    r.aborted = e.what();
  }
  r.phases.total_s = total.lap();
  r.interrupted = interrupt_requested();
  if (r.interrupted) mark_unfinished_not_run(r, "interrupted");
  else if (!r.aborted.empty()) mark_unfinished_not_run(r, "the run was aborted");
  r.provenance.finished_at = utc_now_iso8601();
  return r;
}

}  // namespace nb
