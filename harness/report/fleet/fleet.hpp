#pragma once
// normbench fleet: several reports (one per GPU, or several runs) on one page. Per problem,
// each GPU's best passing variant and its % of that GPU's own measured copy ceiling (for a
// compute-bound problem: of that GPU's own GEMM ceiling of the problem).
#include "harness/report/report_compute.hpp"
#include "harness/report/report_rows.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace nb {

struct FleetRun {
  std::string path;
  std::string label;  // the GPU name, made unique with the start time when two runs share it
  nlohmann::json report;
};

struct BestVariant {
  std::string variant;
  double median_ms = 0;
  std::optional<double> gbps;
  std::optional<double> pct_of_copy;  // % of the run's own measured copy ceiling
  // Compute-bound problems: TFLOP/s and % of the run's own GEMM ceiling of the problem.
  std::optional<double> tflops, pct_of_compute_ceiling;
  bool compute_bound = false;

  // What the page compares across GPUs: % of the GEMM ceiling for a compute-bound problem,
  // else % of the copy ceiling.
  std::optional<double> pct_of_own_ceiling() const { return compute_bound ? pct_of_compute_ceiling : pct_of_copy; }
};

// The fastest row among `problem_rows` that passed with trusted timing (not incorrect, not
// skipped or failed, not flagged faster_than_light or escapes_stream); nullopt when none.
// `report` is the rows' report, `ceilings` its GEMM ceilings.
std::optional<BestVariant> best_passing_variant(const ResultRows& problem_rows, const nlohmann::json& report,
                                                const ComputeCeilings& ceilings);

// Labels the runs by GPU name, unique.
std::vector<FleetRun> label_fleet_runs(std::vector<std::pair<std::string, nlohmann::json>> path_and_report);

std::string render_fleet_html(const std::vector<FleetRun>& runs);

}  // namespace nb
