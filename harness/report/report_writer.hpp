#pragma once
// Writes a run's report.json and report.html into <out_root>/<gpu-slug>/<run-id>/, atomically.
#include <nlohmann/json.hpp>

#include <string>

namespace nb {

// Returns the path of report.json. Throws UsageError when the folder cannot be written. The run id
// is <UTC time>-<commit> unless `run_id` names it (the workers of run --devices share one).
std::string write_run_report(const nlohmann::ordered_json& report, const std::string& out_root,
                             const std::string& run_id = "");

// <UTC time>-<commit>: a new run id.
std::string new_run_id(const std::string& commit);

}  // namespace nb
