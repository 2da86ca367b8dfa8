#pragma once
// The report subcommands as functions the CLI calls: `normbench html`, `normbench compare`,
// `normbench fleet`. Each returns the process exit status (errors.hpp) and throws
// nb::UsageError (exit 2) for a missing file, a file that is not JSON or not a normbench
// report, or an output that cannot be written; the message names the path and the reason.
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace nb {

// Renders REPORT.json as HTML into `out_path`, or beside the JSON as report.html when
// `out_path` is "". Prints the written path. Returns 0.
int html_command(const std::string& report_json_path, const std::string& out_path);

struct CompareOptions {
  std::string base_path;
  std::string new_path;
  bool json = false;                            // --json: print the JSON document instead of the table
  std::string html_out;                         // --html FILE: also write the HTML page ("" = none)
  std::optional<double> fail_on_regression_pct; // --fail-on-regression PCT
  double min_noise_pct = 2.0;                   // --min-noise PCT (the floor of the noise rule)
  double spread_multiplier = 1.0;               // --spread-k K (scales the combined spread)
  double min_us = 1.0;                          // --min-us US (the absolute floor: the events' resolution)
  std::ostream* out = nullptr;                  // where to print; nullptr = std::cout
};

// Compares NEW against BASE. Returns 1 when fail_on_regression_pct is set and a pair is SLOWER
// by more than it, or a verdict went from passed to anything else; otherwise 0.
int compare_command(const CompareOptions& options);

// Reads every report among `inputs` (files, or folders searched recursively for report.json)
// and writes the fleet page to `out_html` ("" = fleet.html in the current folder). Throws
// nb::UsageError when no report is found. Prints the written path. Returns 0.
int fleet_command(const std::vector<std::string>& inputs, const std::string& out_html);

}  // namespace nb
