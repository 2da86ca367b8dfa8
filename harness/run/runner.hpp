#pragma once
// The run: measure the ceilings, validate every case problem by problem, then hand the timing
// to Google Benchmark (one registered benchmark per case, manual time from CUDA events).
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "harness/timing/bandwidth_ceiling.hpp"
#include "harness/plan_cache/plan_cache_setting.hpp"
#include "harness/device/provenance.hpp"
#include "harness/run/case_outcome.hpp"
#include "harness/run/run_case.hpp"
#include "harness/timing/case_timer.hpp"
#include "harness/validation/validation_plan.hpp"

namespace nb {

struct RunOptions {
  ValidationOptions validation;
  SamplePlan samples;
  bool validate_only = false;
  bool profile = false;      // one launch per case inside its NVTX range: for ncu / nsys
  bool progress = true;
  double ftl_noise = 0.05;   // relative margin above the copy ceiling that is still noise
  int device = 0;
  bool measure_copy_ceiling = true;   // off in a candidate's worker: the parent measured it
  bool time_compute_ceilings = true;  // likewise
  // After the timed loop, one more launch on fresh inputs is validated (ValidationResult::after_timing).
  bool recheck_after_timing = false;
  // After each problem's validation, one untimed launch per case with its kernels recorded by CUPTI
  // (run/launch_recording.hpp); off with --no-launches. --profile never records them.
  bool record_launches = true;
  // Where the problem's tensors start (--misaligned: one element past a 256-byte boundary).
  TensorPlacement placement = TensorPlacement::aligned;
  // Where library plans are kept across runs (--plan-cache, --no-plan-cache, else the environment's).
  PlanCacheSetting plan_cache = plan_cache_from_environment();
  // Host threads that build the library plans ahead of the validation (run/plan_ahead.hpp), through
  // the plan cache: -1 picks default_plan_threads(), 0 builds each in its problem's prepare().
  int plan_threads = -1;
  // NORMBENCH_ROWS_IN_FLIGHT where the run starts (run/rows_in_flight_setting.hpp): recorded in the
  // report's settings, and the process's setting the kernels launch by.
  std::optional<int> rows_in_flight;
  // Called with "samples_begin" and "samples_end" around each case's timed loop: a candidate's
  // worker tells its parent, which times the loop with its own clock (worker_protocol.hpp).
  std::function<void(const char*)> mark_samples;
  std::string suite;         // recorded in the report's settings
  std::string command_line;
};

// The compute-bound twin of the copy ceiling: one problem's library reference kernel (the GEMM
// alone at the problem's precision, OpSpec::ceiling_kernel) timed exactly like a case, once per
// problem and run. Variants of the problem are reported as a share of it.
struct ComputeCeiling {
  std::string problem_id;
  DType dtype = DType::f32;  // the problem's precision, which sets its compute peak
  std::string kernel;  // the ceiling kernel's name, e.g. "cublas_gemm_tf32"
  std::string idea;    // what it runs, one line
  double flops = 0;    // the problem's work model (as for its variants), so TFLOP/s compare directly
  SampleStats stats;   // of its samples, in ms
  double tflops() const { return stats.median > 0 ? flops / (stats.median * 1e-3) / 1e12 : 0; }
};

struct RunRecord {
  Provenance provenance;
  BandwidthCeiling ceiling;
  std::vector<ComputeCeiling> compute_ceilings;  // one per timed problem whose op names one
  RunOptions options;
  std::size_t l2_flush_bytes = 0;
  std::vector<RunCase> cases;
  std::vector<CaseOutcome> outcomes;  // outcomes[i] belongs to cases[i]
  RunPhases phases;                   // where the run's seconds went
  std::vector<ProblemPhases> problem_phases;  // per problem, in the order they were validated
  // A partial run: stopped by SIGINT/SIGTERM, or aborted (why) by a fault that left the CUDA
  // context unusable. Either way every case it did not finish has status not_run.
  bool interrupted = false;
  std::string aborted;

  const ComputeCeiling* compute_ceiling_of(const std::string& problem_id) const;  // null when none
  ProblemPhases& phases_of(const std::string& problem_id);  // added when absent
  PhaseTotals phase_totals() const;
};

// Runs the cases. Google Benchmark must have been initialised (benchmark::Initialize) unless
// options.validate_only or options.profile is set.
RunRecord run_cases(std::vector<RunCase> cases, const RunOptions& options);

}  // namespace nb
