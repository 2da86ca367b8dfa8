#pragma once
// The run record as the versioned JSON report of docs/report-schema.md.
#include <nlohmann/json.hpp>

#include <string>

#include "harness/report/case_metrics.hpp"
#include "harness/report/report_schema.hpp"
#include "harness/run/runner.hpp"

namespace nb {


nlohmann::ordered_json build_report_json(const RunRecord& record, const std::vector<CaseMetrics>& metrics);

// The command that reproduces one row, and the ncu command that profiles exactly it.
std::string reproduce_command(const RunCase& c);
std::string profile_command(const RunCase& c);

}  // namespace nb
