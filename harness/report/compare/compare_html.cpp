#include "harness/report/compare/compare_html.hpp"

#include "harness/report/compare/compare_output.hpp"
#include "harness/report/html_escape.hpp"
#include "harness/report/html_page.hpp"
#include "harness/report/html_table.hpp"
#include "harness/report/report_format.hpp"

#include <algorithm>
#include <cctype>

namespace nb {
namespace {

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

std::string row_class(const ComparedRow& row) {
  std::string css = "cmp-" + lower(change_name(row.change));
  if (row.verdict_regressed()) css += " verdict-regressed";
  else if (row.verdict_changed() && row.new_verdict == "passed") css += " verdict-fixed";
  else if (row.verdict_changed()) css += " verdict-changed";
  return css;
}

HtmlRow compare_row(const ComparedRow& row) {
  std::vector<std::string> cells = compared_row_cells(row);
  HtmlRow html_row{{}, row_class(row), {{"op", row.op}, {"change", change_name(row.change)}, {"variant", row.variant}}};
  for (std::size_t c = 0; c < cells.size(); ++c) html_row.cells.push_back({html_escape(cells[c]), c >= 2 && c <= 5 ? "num" : "", ""});
  html_row.cells[0].css_class = "change";
  if (row.ratio) html_row.cells[2].sort_value = format_fixed(*row.ratio, 6);
  return html_row;
}

std::vector<HtmlColumn> compare_html_columns() {
  std::vector<HtmlColumn> columns;
  for (const std::string& title : compare_columns()) columns.push_back({title, title, false});
  for (std::size_t c = 2; c <= 5; ++c) columns[c].numeric = true;
  return columns;
}

std::string run_line(const char* label, const RunIdentity& run) {
  return "<div><b>" + std::string(label) + "</b> <code>" + html_escape(run.path) + "</code> " + html_escape(run.gpu) +
         ", commit <code>" + html_escape(run.commit) + "</code>, " + html_escape(run.started_at) + "</div>\n";
}

std::string regression_html(const std::optional<RegressionCheck>& check) {
  if (!check) return "";
  std::string html = "<div class=\"" + std::string(check->failed() ? "warning" : "muted") + "\">--fail-on-regression " +
                     format_fixed(check->threshold_pct, 1) + "%: " + (check->failed() ? "FAILED" : "ok");
  for (const std::string& reason : check->reasons) html += "<br>" + html_escape(reason);
  return html + "</div>\n";
}

}  // namespace

std::string render_compare_html(const Comparison& comparison, const std::optional<RegressionCheck>& check) {
  std::vector<std::string> ops, changes;
  std::vector<HtmlRow> rows;
  for (const ComparedRow& row : comparison.rows) {
    rows.push_back(compare_row(row));
    if (std::find(ops.begin(), ops.end(), row.op) == ops.end()) ops.push_back(row.op);
    if (std::find(changes.begin(), changes.end(), change_name(row.change)) == changes.end()) changes.push_back(change_name(row.change));
  }
  std::string body = "<header><h1>normbench compare</h1>\n" + run_line("base", comparison.base) + run_line("new", comparison.candidate) + "</header>\n";
  for (const std::string& warning : comparison.warnings) body += "<div class=\"warning\">" + html_escape(warning) + "</div>\n";
  for (const std::string& line : comparison.context) body += "<div class=\"muted context\">" + html_escape(line) + "</div>\n";
  body += "<p>" + html_escape(comparison_counts_line(comparison)) + "<br><span class=\"muted\">noise rule: " +
          html_escape(noise_rule_text(comparison.rule)) + "</span></p>\n" + regression_html(check);
  body += "<div class=\"controls\">" + html_filter_select("op", "op", ops) + html_filter_select("change", "change", changes) +
          "<span id=\"shown-count\" class=\"muted\"></span></div>\n";
  body += render_html_table(compare_html_columns(), rows, "compare");
  return render_html_page("normbench compare: " + comparison.base.gpu + " vs " + comparison.candidate.gpu, body);
}

}  // namespace nb
