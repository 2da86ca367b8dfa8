#pragma once
// Where a run's seconds go: the run's own phases, each problem's validation phases (shared by its
// variants) and each case's own. Host wall-clock seconds; every phase ends in a synchronisation, so
// the GPU work inside it is counted where it was waited for. Reported, never compared: `compare`
// ignores them (docs/report-schema.md).
#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "harness/distribution.hpp"
#include "harness/plan_cache/plan_events.hpp"

namespace nb {

// Seconds since the last lap (or since construction).
class Stopwatch {
 public:
  double lap();

 private:
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

// The validation work of one problem that its variants share, summed over its trials.
struct ProblemPhases {
  std::string problem;
  std::string reference;       // which reference the trials got: "device" or "host"
  double prepare_s = 0;        // the variants prepared (plans, handles), the memory checked, the buffers allocated
  double draw_s = 0;           // the inputs drawn
  double reference_s = 0;      // the float64 reference and the conditions behind the tolerances
  // Eigen's audit of a device reference, in two parts: what it costs the trial before the variants
  // can run (the slices chosen and their copies from the device enqueued), and the wait for its host
  // part (the host's draws, Eigen's slices, the comparison) that the variants did not hide.
  double audit_gather_s = 0;
  double audit_wait_s = 0;
  double upload_s = 0;         // inputs onto the device and their hashes
  double timing_inputs_s = 0;  // the timing buffers allocated and filled
  double ceiling_s = 0;        // the problem's compute ceiling timed (GEMM alone)
  std::vector<PlanEvent> plans;  // the library plans its variants' prepare() built, loaded or had refused (in prepare_s)

  double audit_s() const { return audit_gather_s + audit_wait_s; }
  double total() const { return prepare_s + draw_s + reference_s + audit_s() + upload_s + timing_inputs_s + ceiling_s; }
};

// One case's own seconds.
struct CasePhases {
  // Its validated launches with their poisoning, downloads and comparisons, per distribution.
  std::vector<std::pair<Distribution, double>> validation_s;
  double timing_s = 0;   // warm-up and the timed samples
  double bracket_s = 0;  // the wall-clock bracket that looks for work escaping the timed stream
  double recheck_s = 0;  // the validated launch after the timed loop
  double launches_s = 0;  // the untimed launch whose kernels CUPTI recorded, after the validation

  void add_validation(Distribution d, double seconds);
  double validation_total() const;
  double total() const { return validation_total() + timing_s + bracket_s + recheck_s + launches_s; }
};

// The library plans built ahead on host threads during the validation (run/plan_ahead.hpp).
struct PlanAheadStats {
  int threads = 0;
  int tasks = 0;
  int planned = 0;      // built or loaded by a planning thread
  int failed = 0;       // threw there (prepare() meets it again)
  int taken_back = 0;   // not started when the validation reached it: prepare() built it
  double wall_s = 0;    // from the start to the last task's end
  double busy_s = 0;    // the tasks' seconds, summed over the threads
  double waited_s = 0;  // the validation's waits for a task being built (inside prepare_s)
};

struct RunPhases {
  double setup_s = 0;         // provenance, NVML, the CUDA context and stream
  double copy_ceiling_s = 0;  // the bandwidth ceilings measured at the start
  double validation_s = 0;    // every problem's validation
  double timing_s = 0;        // the benchmark loop over every case and compute ceiling
  double total_s = 0;
  PlanAheadStats plans_ahead;
};

// The run's seconds summed by phase, for the printed breakdown and the report's HTML.
struct PhaseTotals {
  double total = 0, setup = 0, copy_ceiling = 0;
  double validation = 0, prepare = 0, draw = 0, reference = 0, audit_gather = 0, audit_wait = 0, upload = 0, variants = 0,
         launches = 0;
  double timing = 0, timing_inputs = 0, compute_ceilings = 0, samples = 0, brackets = 0, rechecks = 0;
  // Inside prepare: library plans built or refused (plan cache misses) and loaded (hits).
  double plan_build = 0, plan_load = 0;
  int plan_misses = 0, plan_hits = 0;
  PlanAheadStats plans_ahead;  // beside the validation, on host threads: not a part of the sum
  double audit() const { return audit_gather + audit_wait; }
  double other() const;  // what no phase accounts for
};

PhaseTotals sum_phases(const RunPhases& run, const std::vector<ProblemPhases>& problems,
                       const std::vector<CasePhases>& cases);

}  // namespace nb
