#pragma once
// The per-op results table of a report page: problems x variants with time, spread, GB/s,
// % of the measured ceiling, speedups, verdict chips per distribution, flags, and the commands
// that reproduce and profile each row. An op whose problems have a GEMM ceiling (compute-bound)
// shows TFLOP/s and % of the GEMM ceiling instead of GB/s and % of the copy ceiling.
#include "harness/report/report_compute.hpp"
#include "harness/report/report_rows.hpp"

#include <string>

namespace nb {

// The table of `rows`, with the GEMM ceilings of their report.
std::string render_results_table(const ComputeCeilings& ceilings, const ResultRows& rows);

// "uniform01 ✓ normal ✓ offset ✗(not claimed)" as chips, for one row.
std::string render_distribution_chips(const nlohmann::json& row);

// One chip per flag (faster_than_light, escapes_stream, throttled, fits_in_l2).
std::string render_flag_chips(const nlohmann::json& row);

}  // namespace nb
