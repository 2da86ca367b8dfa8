#include "harness/report/page/html_report.hpp"

#include "harness/report/html_escape.hpp"
#include "harness/report/html_page.hpp"
#include "harness/report/html_table.hpp"
#include "harness/report/json_fields.hpp"
#include "harness/report/page/report_charts.hpp"
#include "harness/report/report_compute.hpp"
#include "harness/report/page/report_phases.hpp"
#include "harness/report/report_provenance.hpp"
#include "harness/report/page/report_results_table.hpp"
#include "harness/report/result_classes.hpp"

namespace nb {
namespace {

std::vector<std::string> verdicts_present(const ResultRows& rows) {
  std::vector<std::string> present;
  for (const char* verdict : {"passed", "incorrect", "inconclusive", "flagged", "not_verified", "skipped", "error", "not_run"})
    for (const nlohmann::json* row : rows)
      if (verdict_of(*row) == verdict) {
        present.push_back(verdict);
        break;
      }
  return present;
}

std::string summary_html(const nlohmann::json& report) {
  std::string html = "<p class=\"summary\">";
  for (const char* key : {"cases", "ran", "skipped", "errors", "not_run", "passed", "incorrect", "inconclusive", "flagged",
                          "not_verified", "fragile", "exit_status"}) {
    if (field_path(report, std::string("summary.") + key) == nullptr) continue;  // older reports have fewer
    html += "<span class=\"chip\">" + std::string(key) + " " + html_escape(text_of(report, std::string("summary.") + key)) + "</span>";
  }
  return html + "</p>\n";
}

// A partial run says so before anything else: interrupted, or aborted and why, and the cases not run.
std::string run_state_html(const nlohmann::json& report) {
  const bool interrupted = report.value("interrupted", nlohmann::json(false)) == true;
  const std::string aborted = text_of(report, "aborted");
  std::vector<std::string> not_run = strings_of(report, "not_run");
  if (!interrupted && aborted.empty() && not_run.empty()) return "";
  std::string html = "<section class=\"run-state\" id=\"run-state\"><p><b>Partial report: ";
  html += interrupted ? std::string("the run was interrupted") : "the run was aborted: " + html_escape(aborted);
  html += ".</b> " + std::to_string(not_run.size()) + " case(s) not run.</p>\n";
  if (!not_run.empty()) {
    html += "<details><summary>cases not run</summary><ul class=\"not-run\">";
    for (const std::string& name : not_run) html += "<li>" + html_escape(name) + "</li>";
    html += "</ul></details>";
  }
  return html + "</section>\n";
}

// A run on misaligned tensors says so first: its verdicts are about that placement, and its times
// do not compare with an aligned run's.
std::string placement_html(const nlohmann::json& report) {
  if (text_of(report, "settings.tensor_placement") != "misaligned") return "";
  return "<section class=\"run-state\" id=\"placement\"><p><b>Misaligned tensors:</b> every tensor started one "
         "element past a 256-byte boundary (<code>--misaligned</code>); a variant whose vector path needs 16-byte "
         "alignment fell back or declined the case. Times are not comparable with an aligned run's.</p></section>\n";
}

std::string controls_html(const ResultRows& rows) {
  return "<div class=\"controls\">" + html_filter_select("op", "op", distinct_values(rows, "op")) +
         html_filter_select("variant", "variant", distinct_values(rows, "variant")) +
         html_filter_select("verdict", "verdict", verdicts_present(rows)) +
         "<span id=\"shown-count\" class=\"muted\"></span> <span class=\"muted\">click a column header to sort</span></div>\n";
}

std::string op_section_html(const nlohmann::json& report, const ComputeCeilings& ceilings, const std::string& op,
                            const ResultRows& op_rows) {
  std::string html = "<section class=\"op\" id=\"op-" + html_escape(op) + "\">\n<h2>" + html_escape(op) + "</h2>\n";
  html += render_results_table(ceilings, op_rows);
  if (ceilings.any_compute_bound(op_rows)) {
    // GB/s against size says nothing about a compute-bound op: no sweep chart.
    return html + "<h3>% of the GEMM ceiling (the library GEMM alone at the problem's precision), per problem</h3>\n" +
           render_ceiling_bar_charts(ceilings, op_rows) + "</section>\n";
  }
  html += "<h3>% of the measured copy ceiling, per problem</h3>\n" + render_ceiling_bar_charts(ceilings, op_rows);
  std::string sweep = render_sweep_chart(report, op, op_rows);
  if (!sweep.empty()) html += "<h3>Bandwidth against size</h3>\n" + sweep;
  return html + "</section>\n";
}

}  // namespace

std::string render_report_html(const nlohmann::json& report) {
  ResultRows rows = all_results(report);
  std::string body = run_state_html(report) + placement_html(report) + render_provenance_html(report) +
                     summary_html(report) + render_ceilings_html(report);
  body += controls_html(rows);
  const ComputeCeilings ceilings(report);
  for (const RowGroup& op : group_rows(rows, "op")) body += op_section_html(report, ceilings, op.value, op.rows);
  body += render_phases_html(report);
  return render_html_page("normbench report: " + gpu_name_of(report), body);
}

}  // namespace nb
