#include "harness/report/report_loading.hpp"

#include "harness/errors.hpp"
#include "harness/files/file_kind.hpp"
#include "harness/files/gzip_inflate.hpp"
#include "harness/report/report_schema.hpp"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace nb {
namespace {

// A report nests 8 levels. Deeper text is refused while it is parsed: the library's writer, copy
// and comparison recurse once per level, and 100,000 levels (a 200 KB file) overflow the stack.
constexpr int kMaxReportDepth = 64;

// The most a compressed report may inflate to. Reports run to a few MB, and parsed JSON takes
// several times its text in memory: past 1 GiB, a file is a gzip bomb, not a report.
constexpr std::size_t kMaxInflatedReportBytes = std::size_t(1) << 30;

// The text of a report file: as it is, or inflated when it is gzip-compressed (report.json.gz,
// which is how reports are committed). Told by the content's first two bytes, which no JSON text
// begins with; a file named .gz without them is refused, since its name promises what it is not.
std::string read_report_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(path + ": cannot open for reading");
  std::stringstream bytes;
  bytes << in.rdbuf();
  const std::string content = bytes.str();
  if (starts_with_gzip_magic(content)) return inflate_gzip(content, path, kMaxInflatedReportBytes);
  if (std::filesystem::path(path).extension() == ".gz")
    throw UsageError(path + ": named .gz but not gzip-compressed (it does not begin with the gzip bytes 1f 8b)");
  return content;
}

// The JSON of a report file; every error names the file: a syntax error, nesting deeper than
// kMaxReportDepth, and a number beyond a double's range (which the library throws as out_of_range).
nlohmann::json parse_report_text(const std::string& text, const std::string& path) {
  using Event = nlohmann::json::parse_event_t;
  const auto refuse_deep = [&path](int depth, Event event, nlohmann::json&) {
    if ((event == Event::object_start || event == Event::array_start) && depth >= kMaxReportDepth)
      throw UsageError(path + ": JSON nested deeper than " + std::to_string(kMaxReportDepth) +
                       " levels; a normbench report nests 8 (see docs/report-schema.md)");
    return true;
  };
  try {
    return nlohmann::json::parse(text, refuse_deep);
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(path + ": not valid JSON: " + e.what());
  }
}

}  // namespace

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
  // Settings of later minors: 5, the plan cache the run used (its plans are in phases, which readers
  // take as they come); 10, where the run placed the tensors; 11, the run's NORMBENCH_ROWS_IN_FLIGHT
  // (null: the device chose).
  if (report.contains("settings") && report["settings"].is_object())
    for (const char* key : {"plan_cache", "tensor_placement", "rows_in_flight"})
      if (!report["settings"].contains(key)) report["settings"][key] = nullptr;
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
  // Minor 12: the kernels of each row's recorded launch, and the seconds that launch took.
  for (auto& row : report["results"]) {
    if (!row.is_object()) continue;
    if (!row.contains("launches")) row["launches"] = nullptr;
    if (row.contains("phases") && row["phases"].is_object() && !row["phases"].contains("launches_s"))
      row["phases"]["launches_s"] = nullptr;
  }
  // Minor 13: the board's power and clock caps over each row's samples.
  for (auto& row : report["results"])
    if (row.is_object() && row.contains("timing") && row["timing"].is_object() && !row["timing"].contains("board"))
      row["timing"]["board"] = nullptr;
}

nlohmann::json load_report_file(const std::string& path) {
  if (std::string why = why_not_a_readable_file(path, "report"); !why.empty()) throw UsageError(path + ": " + why);
  nlohmann::json report = parse_report_text(read_report_text(path), path);
  require_readable_report(report, path);
  fill_fields_of_newer_minors(report);
  return report;
}

namespace {

namespace fs = std::filesystem;

bool is_report_file_name(const fs::path& path) {
  return path.filename() == "report.json" || path.filename() == "report.json.gz";
}

// A run's folder that holds both report.json and report.json.gz (compressed with `gzip -k`, which
// keeps the plain file) is one run, counted once: the plain report.json is taken and the .gz left
// out. A plain one that cannot be read is skipped (and
// named), so the .gz beside it is then the run's report. `sorted` is sorted; so is the result.
std::vector<std::string> without_compressed_twins(const std::vector<std::string>& sorted) {
  std::vector<std::string> kept;
  for (const std::string& path : sorted) {
    const fs::path file(path);
    const std::string plain = (file.parent_path() / "report.json").string();
    if (file.filename() == "report.json.gz" && std::binary_search(sorted.begin(), sorted.end(), plain)) continue;
    kept.push_back(path);
  }
  return kept;
}

// The files named report.json or report.json.gz under `folder`, sorted; one that cannot be read as
// a regular file (a FIFO, a link loop, no permission) is skipped with the reason, a folder the walk
// cannot enter is a usage error: a fleet silently missing a GPU would read as complete.
void find_in_folder(const std::string& folder, ReportFiles& found) {
  std::vector<std::string> files;
  std::error_code error;
  fs::recursive_directory_iterator walk(folder, fs::directory_options::skip_permission_denied, error);
  for (; !error && walk != fs::recursive_directory_iterator(); walk.increment(error)) {
    if (!is_report_file_name(walk->path())) continue;
    const std::string path = walk->path().string();
    if (std::string why = why_not_a_readable_file(path, "report"); why.empty()) files.push_back(path);
    else found.skipped.push_back(path + ": " + why);
  }
  if (error) throw UsageError(folder + ": cannot search it for report files: " + error.message());
  std::sort(files.begin(), files.end());
  const std::vector<std::string> runs = without_compressed_twins(files);
  found.files.insert(found.files.end(), runs.begin(), runs.end());
}

}  // namespace

ReportFiles find_report_files(const std::vector<std::string>& inputs) {
  ReportFiles found;
  for (const std::string& input : inputs) {
    std::error_code error;
    if (fs::is_directory(input, error)) find_in_folder(input, found);
    else if (std::string why = why_not_a_readable_file(input, "report"); !why.empty()) throw UsageError(input + ": " + why);
    else found.files.push_back(input);
  }
  return found;
}

}  // namespace nb
