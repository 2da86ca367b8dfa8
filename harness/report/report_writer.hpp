#pragma once
// Writes a run's report.json and report.html into <out_root>/<gpu-slug>/<run-id>/, atomically.
#include <nlohmann/json.hpp>

#include <string>

namespace nb {

// Returns the path of report.json. Throws UsageError when the folder cannot be written.
std::string write_run_report(const nlohmann::ordered_json& report, const std::string& out_root);

}  // namespace nb
