#include "harness/report/report_loading.hpp"

#include "harness/errors.hpp"
#include "harness/report/report_schema.hpp"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace nb {

void require_readable_report(const nlohmann::json& report, const std::string& origin) {
  if (!report.is_object() || !report.contains("schema") || report["schema"] != kReportSchema)
    throw UsageError(origin + ": not a normbench report (expected \"schema\": \"" + kReportSchema + "\")");
  const auto& version = report.value("schema_version", nlohmann::json());
  if (!version.is_number_integer())
    throw UsageError(origin + ": schema_version is missing or not an integer");
  // Compared as 64-bit numbers: 2^64-1 must not wrap to -1 and read as an old version.
  const bool is_unsigned = version.is_number_unsigned();
  const std::uint64_t positive = is_unsigned ? version.get<std::uint64_t>() : 0;
  const std::int64_t signed_value = is_unsigned ? 0 : version.get<std::int64_t>();
  if (is_unsigned ? positive > std::uint64_t(kReportSchemaVersion) : signed_value > kReportSchemaVersion)
    throw UsageError(origin + ": schema_version " + version.dump() + " is newer than this normbench reads (" +
                     std::to_string(kReportSchemaVersion) + "); update normbench");
  if (is_unsigned ? positive < 1 : signed_value < 1)
    throw UsageError(origin + ": schema_version " + version.dump() + " is not a version (versions start at 1)");
  if (!report.contains("results") || !report["results"].is_array())
    throw UsageError(origin + ": no results[] array (see docs/report-schema.md)");
  const nlohmann::json& results = report["results"];
  for (std::size_t i = 0; i < results.size(); ++i)
    if (!results[i].is_object())
      throw UsageError(origin + ": results[" + std::to_string(i) + "] is not an object (see docs/report-schema.md)");
}

void fill_fields_of_newer_minors(nlohmann::json& report) {
  if (!report.contains("schema_minor_version")) report["schema_minor_version"] = 0;
  // Minor 1: compute ceilings and the compute-bound fields of each row.
  if (!report.contains("compute_ceilings") || !report["compute_ceilings"].is_array())
    report["compute_ceilings"] = nlohmann::json::array();
  if (report.contains("ceilings") && report["ceilings"].is_object()) {
    nlohmann::json& ceilings = report["ceilings"];
    for (const char* key : {"compute_peak_tflops", "compute_peak_flops_per_clock_per_sm"})
      if (!ceilings.contains(key)) ceilings[key] = nullptr;
  }
  for (auto& row : report["results"])
    if (row.is_object())
      for (const char* key : {"tflops", "pct_of_compute_ceiling"})
        if (!row.contains(key)) row[key] = nullptr;
  // Minor 2: external candidates (normbench eval) and the check after the timed loop.
  for (auto& row : report["results"]) {
    if (!row.is_object()) continue;
    if (!row.contains("external")) row["external"] = nullptr;
    if (row.contains("validation") && row["validation"].is_object() && !row["validation"].contains("after_timing"))
      row["validation"]["after_timing"] = nullptr;
  }
  // Minor 3: how a partial run ended, and the not_run status of a row.
  if (!report.contains("interrupted") || !report["interrupted"].is_boolean()) report["interrupted"] = false;
  if (!report.contains("aborted") || !report["aborted"].is_string()) report["aborted"] = nullptr;
  if (!report.contains("not_run") || !report["not_run"].is_array()) report["not_run"] = nlohmann::json::array();
  for (auto& row : report["results"])
    if (row.is_object() && !row.contains("not_run_reason")) row["not_run_reason"] = nullptr;
  // Minor 4: where the seconds went, for the run and per row; where each row's reference was computed.
  if (!report.contains("phases") || !report["phases"].is_object()) report["phases"] = nullptr;
  for (auto& row : report["results"]) {
    if (!row.is_object()) continue;
    if (!row.contains("phases")) row["phases"] = nullptr;
    if (row.contains("validation") && row["validation"].is_object() && !row["validation"].contains("reference"))
      row["validation"]["reference"] = nullptr;
  }
  // Minor 5: what each flag saw, the timed-output check, the GPU clock, the hidden odd shape.
  for (auto& row : report["results"]) {
    if (!row.is_object()) continue;
    if (!row.contains("flag_notes") || !row["flag_notes"].is_object()) row["flag_notes"] = nlohmann::json::object();
    if (row.contains("validation") && row["validation"].is_object() && !row["validation"].contains("hidden_shape"))
      row["validation"]["hidden_shape"] = nullptr;
    if (row.contains("timing") && row["timing"].is_object()) {
      nlohmann::json& timing = row["timing"];
      if (!timing.contains("device_ms_per_sample")) timing["device_ms_per_sample"] = nullptr;
      if (!timing.contains("output_check")) timing["output_check"] = nullptr;
    }
  }
}

nlohmann::json load_report_file(const std::string& path) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error))
    throw UsageError(path + ": no such report file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(path + ": cannot open for reading");
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json report;
  try {
    report = nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::parse_error& e) {
    throw UsageError(path + ": not valid JSON: " + e.what());
  }
  require_readable_report(report, path);
  fill_fields_of_newer_minors(report);
  return report;
}

std::vector<std::string> find_report_files(const std::vector<std::string>& inputs) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  for (const std::string& input : inputs) {
    std::error_code error;
    if (fs::is_directory(input, error)) {
      std::vector<std::string> found;
      for (const auto& entry : fs::recursive_directory_iterator(input, fs::directory_options::skip_permission_denied, error))
        if (entry.is_regular_file() && entry.path().filename() == "report.json") found.push_back(entry.path().string());
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else if (fs::exists(input, error)) {
      files.push_back(input);
    } else {
      throw UsageError(input + ": no such file or folder");
    }
  }
  return files;
}

}  // namespace nb
