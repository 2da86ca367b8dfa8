#pragma once
// The charts of a report page: % of the copy (or GEMM) ceiling per variant for each problem, and
// bandwidth against size for the problems of the `sweep` suite.
#include "harness/report/report_compute.hpp"
#include "harness/report/report_rows.hpp"

#include <string>

namespace nb {

// One bar chart per problem among `op_rows` (rows of one op): % of the copy ceiling, or, for an
// op whose problems have GEMM ceilings (`ceilings`, of their report), % of the problem's GEMM ceiling.
std::string render_ceiling_bar_charts(const ComputeCeilings& ceilings, const ResultRows& op_rows);

// GB/s against bytes (log axis) for `op_rows` in the sweep suite, one series per variant, with
// the L2 size and the copy ceiling of `report` drawn as lines. "" when the op has no sweep rows.
std::string render_sweep_chart(const nlohmann::json& report, const std::string& op, const ResultRows& op_rows);

}  // namespace nb
