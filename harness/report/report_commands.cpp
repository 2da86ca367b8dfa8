#include "harness/report/report_commands.hpp"

#include "harness/errors.hpp"
#include "harness/files/file_kind.hpp"
#include "harness/files/atomic_write.hpp"
#include "harness/report/compare/compare_html.hpp"
#include "harness/report/compare/compare_output.hpp"
#include "harness/report/fleet/fleet.hpp"
#include "harness/report/page/html_report.hpp"
#include "harness/report/report_loading.hpp"

#include <cmath>
#include <filesystem>
#include <iostream>

namespace nb {
namespace {

// An output that is one of the inputs would replace the report it is made from with HTML: refused,
// however the two paths are spelled (links, "..", relative or absolute).
void refuse_overwriting_an_input(const std::string& out, const std::vector<std::string>& inputs,
                                 const std::string& option) {
  for (const std::string& input : inputs) {
    std::error_code error;  // an output that does not exist yet is no input
    if (std::filesystem::equivalent(out, input, error))
      throw UsageError(option + " " + out + " is the input report " + input +
                       ": writing it would replace the report; choose another output file");
  }
}

// An output is checked before the inputs are read and rendered: it must not be an input, and it
// must be a regular file (or a link to one) or not exist yet.
void check_output(const std::string& out, const std::vector<std::string>& inputs, const std::string& option) {
  refuse_overwriting_an_input(out, inputs, option);
  regular_file_to_write(out, option);
}

}  // namespace

int html_command(const std::string& report_json_path, const std::string& out_path) {
  const std::string target = out_path.empty()
                                 ? (std::filesystem::path(report_json_path).parent_path() / "report.html").string()
                                 : out_path;
  check_output(target, {report_json_path}, out_path.empty() ? "the output" : "--out");
  nlohmann::json report = load_report_file(report_json_path);
  write_file_atomically(target, render_report_html(report));
  std::cout << "wrote " << target << "\n";
  return kExitOk;
}

int compare_command(const CompareOptions& options) {
  std::ostream& out = options.out != nullptr ? *options.out : std::cout;
  if (!(options.min_noise_pct >= 0) || !(options.spread_multiplier >= 0) || !(options.min_us >= 0) ||
      !std::isfinite(options.min_noise_pct) || !std::isfinite(options.spread_multiplier) || !std::isfinite(options.min_us))
    throw UsageError("compare: the noise floors and the spread multiplier must be finite and not negative");
  if (options.fail_on_regression_pct &&
      (!(*options.fail_on_regression_pct >= 0) || !std::isfinite(*options.fail_on_regression_pct)))
    throw UsageError("compare: --fail-on-regression must be a finite percentage >= 0");
  if (!options.html_out.empty()) check_output(options.html_out, {options.base_path, options.new_path}, "--html");
  nlohmann::json base = load_report_file(options.base_path);
  nlohmann::json candidate = load_report_file(options.new_path);
  Comparison comparison =
      compare_reports(base, candidate, {options.min_noise_pct, options.spread_multiplier, options.min_us});
  comparison.base.path = options.base_path;
  comparison.candidate.path = options.new_path;
  std::optional<RegressionCheck> check;
  if (options.fail_on_regression_pct) check = check_regressions(comparison, *options.fail_on_regression_pct);
  if (options.json) out << compare_to_json(comparison, check).dump(2) << "\n";
  else out << render_compare_text(comparison, check);
  if (!options.html_out.empty()) write_file_atomically(options.html_out, render_compare_html(comparison, check));
  return check && check->failed() ? kExitVerdictFailed : kExitOk;
}

int fleet_command(const std::vector<std::string>& inputs, const std::string& out_html) {
  const ReportFiles found = find_report_files(inputs);
  for (const std::string& skipped : found.skipped) std::cerr << "normbench fleet: skipped " << skipped << "\n";
  const std::vector<std::string>& files = found.files;
  if (files.empty()) throw UsageError("fleet: no report.json or report.json.gz found in the given files and folders");
  const std::string target = out_html.empty() ? "fleet.html" : out_html;
  check_output(target, files, out_html.empty() ? "the output" : "--out");
  std::vector<std::pair<std::string, nlohmann::json>> loaded;
  for (const std::string& file : files) loaded.emplace_back(file, load_report_file(file));
  write_file_atomically(target, render_fleet_html(label_fleet_runs(std::move(loaded))));
  std::cout << "wrote " << target << " (" << files.size() << " reports)\n";
  return kExitOk;
}

}  // namespace nb
