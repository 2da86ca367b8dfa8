#pragma once
// Reading report.json files (or report.json.gz, gzip-compressed) for html, compare and fleet, with
// errors a user can act on.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace nb {

// Parses and checks one report. A file whose content begins with gzip's magic bytes is inflated
// first, whatever its name. Throws nb::UsageError naming the path and the reason: the file
// is missing, unreadable or not a regular file (a FIFO is named, never opened), is named .gz but is
// not gzip data, is corrupt or truncated gzip data or inflates past 1 GiB, is not JSON, is not a
// normbench report, has a newer major schema version than this build reads, or lacks results[].
// A report of an older minor version comes back with the later fields present and null
// (fill_fields_of_newer_minors).
nlohmann::json load_report_file(const std::string& path);

// Adds what later minor versions define to an older report: schema_minor_version 0, an empty
// compute_ceilings[], null compute peaks, and null tflops / pct_of_compute_ceiling per row (minor
// 1); null external and validation.after_timing per row (minor 2); interrupted false, aborted null,
// an empty not_run[] and null not_run_reason per row (minor 3); null phases, of the run and per row
// (minor 4); null settings.plan_cache (minor 5); null launches and phases.launches_s per row (minor 12).
// Fields the report has are left alone.
void fill_fields_of_newer_minors(nlohmann::json& report);

// Checks schema, schema_version and results[] (an array of objects) of a parsed report; `origin` names it in errors.
void require_readable_report(const nlohmann::json& report, const std::string& origin);

struct ReportFiles {
  std::vector<std::string> files;
  std::vector<std::string> skipped;  // "<path>: <why>" of each report file found but not readable
};

// The report files among `inputs`: a file as itself, a folder searched recursively for files
// named report.json or report.json.gz (sorted). A folder holding both gives its report.json only,
// so no run is counted twice. A report file in a folder that is not a readable regular file (a
// FIFO, a symbolic link loop) is skipped and named in `skipped`. Throws nb::UsageError for an
// input given by name that does not exist or is not a readable file or folder, and for a folder
// the search cannot walk.
ReportFiles find_report_files(const std::vector<std::string>& inputs);

}  // namespace nb
