// Fuzz target: the input as a report.json, loaded the way html, compare and fleet load it
// (load_report_file), then rendered as each of them renders it: the report page, a comparison with
// itself and with an empty run (every row matched, then every row added and removed), the
// comparison's text, JSON and page, and a fleet of two runs of one GPU. A UsageError from the
// loader is the expected refusal; anything else thrown, a crash or a sanitizer report is a finding.
#include <cstdint>
#include <utility>
#include <vector>

#include "fuzz_support.hpp"
#include "harness/errors.hpp"
#include "harness/report/compare/compare_html.hpp"
#include "harness/report/compare/compare_output.hpp"
#include "harness/report/compare/compare_runs.hpp"
#include "harness/report/fleet/fleet.hpp"
#include "harness/report/page/html_report.hpp"
#include "harness/report/report_loading.hpp"

namespace {

// A run with no rows, as the loader returns it.
nlohmann::json empty_report() {
  nlohmann::json report = {{"schema", "normbench.report"}, {"schema_version", 1}, {"results", nlohmann::json::array()}};
  nb::fill_fields_of_newer_minors(report);
  return report;
}

void render_comparison(const nlohmann::json& base, const nlohmann::json& candidate) {
  const nb::Comparison comparison = nb::compare_reports(base, candidate);
  const nb::RegressionCheck check = nb::check_regressions(comparison, 0.0);
  nb::render_compare_text(comparison, check);
  nb::compare_to_json(comparison, check).dump(2);
  nb::render_compare_html(comparison, check);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static nb::fuzz::InputFile file("report.json");
  nlohmann::json report;
  try {
    report = nb::load_report_file(file.write(data, size));
  } catch (const nb::UsageError&) {
    return 0;
  }
  nb::render_report_html(report);
  render_comparison(report, report);
  render_comparison(report, empty_report());
  render_comparison(empty_report(), report);
  std::vector<std::pair<std::string, nlohmann::json>> fleet{{file.path(), report}, {file.path(), report}};
  nb::render_fleet_html(nb::label_fleet_runs(std::move(fleet)));
  return 0;
}
