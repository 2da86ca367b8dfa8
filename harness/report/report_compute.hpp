#pragma once
// Reading the compute-bound side of a report: the GEMM ceilings (compute_ceilings[]), which
// rows are judged against them, the compute peaks per dtype, and how a problem is named when
// its precision matters (tf32 beside fp32). Report, compare, fleet and tests share these.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>

#include "harness/report/report_rows.hpp"

namespace nb {

// The compute_ceilings[] entry of `problem_id`, or nullptr (none, or a report older than
// schema minor 1).
const nlohmann::json* compute_ceiling_of(const nlohmann::json& report, const std::string& problem_id);

// True when the report timed a GEMM ceiling for the row's problem, or the row has TFLOP/s: it is
// judged against the GEMM ceiling, not the copy ceiling.
bool is_compute_bound_row(const nlohmann::json& report, const nlohmann::json& row);

// True when any of `rows` is compute-bound (an op's section switches its columns on this).
bool any_compute_bound(const nlohmann::json& report, const ResultRows& rows);

// ceilings.compute_peak_tflops[dtype], when the report knows it.
std::optional<double> compute_peak_of(const nlohmann::json& report, const std::string& dtype);

// The row's problem_name, followed by its dtype when that is not fp32 ("m4096_n4096_k4096 tf32"),
// so that the fp32 and tf32 problems of one shape read apart.
std::string problem_label(const nlohmann::json& row);

}  // namespace nb
