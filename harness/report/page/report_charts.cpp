#include "harness/report/page/report_charts.hpp"

#include "harness/report/json_fields.hpp"
#include "harness/report/report_compute.hpp"
#include "harness/report/report_format.hpp"
#include "harness/report/result_classes.hpp"
#include "harness/report/svg_chart.hpp"

namespace nb {
namespace {

std::string bar_note(const nlohmann::json& row) {
  std::string verdict = verdict_of(row);
  std::string note = verdict == "passed" ? "" : verdict;
  if (contains_string(strings_of(row, "flags"), "faster_than_light")) note += " faster than light";
  if (contains_string(strings_of(row, "flags"), "fits_in_l2")) note += " (fits in L2)";
  return note;
}

BarChart ceiling_chart_for(const std::string& problem_label, const ResultRows& problem_rows) {
  BarChart chart{"% of copy ceiling: " + problem_label, "%", {}, 100.0, "copy ceiling"};
  for (const nlohmann::json* row : problem_rows)
    chart.bars.push_back({text_of(*row, "variant"), number_of(*row, "pct_of_copy"), failure_class_attribute(*row), bar_note(*row)});
  return chart;
}

// A compute-bound problem's bars: % of its GEMM ceiling (the library GEMM alone at the
// problem's precision), never mixed with % of the copy ceiling.
BarChart gemm_ceiling_chart_for(const ComputeCeilings& ceilings, const std::string& problem_label,
                                const ResultRows& problem_rows) {
  const nlohmann::json* ceiling = ceilings.of(text_of(*problem_rows.front(), "problem"));
  std::string kernel = ceiling != nullptr ? text_of(*ceiling, "kernel") : "";
  BarChart chart{"% of GEMM ceiling: " + problem_label, "%", {}, 100.0,
                 kernel.empty() ? "GEMM ceiling" : "GEMM ceiling (" + kernel + ")"};
  for (const nlohmann::json* row : problem_rows)
    chart.bars.push_back({text_of(*row, "variant"), number_of(*row, "pct_of_compute_ceiling"), failure_class_attribute(*row),
                          bar_note(*row)});
  return chart;
}

ChartPoint sweep_point(const nlohmann::json& row) {
  double bytes = number_of(row, "bytes").value_or(0), gbps = number_of(row, "gbps").value_or(0);
  return {bytes, gbps,
          text_of(row, "variant") + " " + text_of(row, "problem_name") + ": " + format_bytes(bytes) + ", " +
              format_fixed(gbps, 0) + " GB/s, " + verdict_of(row)};
}

}  // namespace

std::string render_ceiling_bar_charts(const ComputeCeilings& ceilings, const ResultRows& op_rows) {
  const bool compute_bound = ceilings.any_compute_bound(op_rows);
  std::string html = "<div class=\"charts\">\n";
  for (const RowGroup& problem : group_rows(op_rows, "problem")) {
    const ResultRows& problem_rows = problem.rows;
    const std::string label = problem_label(*problem_rows.front());
    html += render_bar_chart_svg(compute_bound ? gemm_ceiling_chart_for(ceilings, label, problem_rows)
                                               : ceiling_chart_for(label, problem_rows));
  }
  return html + "</div>\n";
}

std::string render_sweep_chart(const nlohmann::json& report, const std::string& op, const ResultRows& op_rows) {
  ResultRows sweep_rows = rows_in_suite(op_rows, "sweep");
  if (sweep_rows.empty()) return "";
  LogXChart chart{op + ": bandwidth against size (sweep suite)", "bytes moved (log scale)", "GB/s", {}, std::nullopt, std::nullopt};
  for (const RowGroup& variant : group_rows(sweep_rows, "variant")) {
    ChartSeries series{variant.value, {}};
    for (const nlohmann::json* row : variant.rows)
      if (number_of(*row, "gbps") && number_of(*row, "bytes")) series.points.push_back(sweep_point(*row));
    if (!series.points.empty()) chart.series.push_back(series);
  }
  if (auto l2 = number_of(report, "provenance.gpu.l2_bytes")) chart.vertical = ChartMarker{*l2, "L2 " + format_bytes(*l2)};
  if (auto copy = number_of(report, "ceilings.copy_gbps"))
    chart.horizontal = ChartMarker{*copy, "copy ceiling " + format_fixed(*copy, 0) + " GB/s"};
  return "<div class=\"charts sweep\">\n" + render_log_x_chart_svg(chart) + "</div>\n";
}

}  // namespace nb
