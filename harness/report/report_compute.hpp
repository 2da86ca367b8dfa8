#pragma once
// Reading the compute-bound side of a report: the GEMM ceilings (compute_ceilings[]), which
// rows are judged against them, the compute peaks per dtype, and how a problem is named when
// its precision matters (tf32 beside fp32). Report, compare, fleet and tests share these.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <unordered_map>

#include "harness/report/report_rows.hpp"

namespace nb {

// A report's compute_ceilings[] by problem id, indexed once: the pages look up a row's GEMM
// ceiling per row, and a scan of the array per lookup made them quadratic in the report's size.
// It points into the report, which must outlive it.
class ComputeCeilings {
 public:
  explicit ComputeCeilings(const nlohmann::json& report);

  // The compute_ceilings[] entry of `problem_id` (the first, if several), or nullptr (none, or a
  // report older than schema minor 1).
  const nlohmann::json* of(const std::string& problem_id) const;

  // True when the report timed a GEMM ceiling for the row's problem, or the row has TFLOP/s: it is
  // judged against the GEMM ceiling, not the copy ceiling.
  bool is_compute_bound(const nlohmann::json& row) const;

  // True when any of `rows` is compute-bound (an op's section switches its columns on this).
  bool any_compute_bound(const ResultRows& rows) const;

 private:
  std::unordered_map<std::string, const nlohmann::json*> by_problem_;
};

// ceilings.compute_peak_tflops[dtype], when the report knows it.
std::optional<double> compute_peak_of(const nlohmann::json& report, const std::string& dtype);

// The row's problem_name, followed by its dtype when that is not fp32 ("m4096_n4096_k4096 tf32"),
// so that the fp32 and tf32 problems of one shape read apart.
std::string problem_label(const nlohmann::json& row);

}  // namespace nb
