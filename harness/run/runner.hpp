#pragma once
// The run: measure the ceilings, validate every case problem by problem, then hand the timing
// to Google Benchmark (one registered benchmark per case, manual time from CUDA events).
#include <string>
#include <vector>

#include "harness/device/bandwidth_ceiling.hpp"
#include "harness/report/provenance.hpp"
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
  std::string suite;         // recorded in the report's settings
  std::string command_line;
};

struct RunRecord {
  Provenance provenance;
  BandwidthCeiling ceiling;
  RunOptions options;
  std::size_t l2_flush_bytes = 0;
  std::vector<RunCase> cases;
  std::vector<CaseOutcome> outcomes;  // outcomes[i] belongs to cases[i]
};

// Runs the cases. Google Benchmark must have been initialised (benchmark::Initialize) unless
// options.validate_only or options.profile is set.
RunRecord run_cases(std::vector<RunCase> cases, const RunOptions& options);

}  // namespace nb
