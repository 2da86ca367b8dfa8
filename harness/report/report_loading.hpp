#pragma once
// Reading report.json files for html, compare and fleet, with errors a user can act on.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace nb {

// Parses and checks one report. Throws nb::UsageError naming the path and the reason: the file
// is missing or unreadable, is not JSON, is not a normbench report, has a newer major schema
// version than this build reads, or lacks results[].
nlohmann::json load_report_file(const std::string& path);

// Checks schema, schema_version and results[] of a parsed report; `origin` names it in errors.
void require_readable_report(const nlohmann::json& report, const std::string& origin);

// The report files among `inputs`: a file as itself, a folder searched recursively for files
// named report.json (sorted). Throws nb::UsageError for an input that does not exist.
std::vector<std::string> find_report_files(const std::vector<std::string>& inputs);

}  // namespace nb
