#include "harness/report/fleet/fleet.hpp"

#include "harness/report/html_escape.hpp"
#include "harness/report/html_page.hpp"
#include "harness/report/html_table.hpp"
#include "harness/report/json_fields.hpp"
#include "harness/report/report_compute.hpp"
#include "harness/report/report_format.hpp"
#include "harness/report/report_provenance.hpp"
#include "harness/report/result_classes.hpp"
#include "harness/report/svg_chart.hpp"

#include <filesystem>
#include <map>
#include <unordered_map>
#include <unordered_set>

namespace nb {
namespace {

std::optional<double> percent_of_own_ceiling(const nlohmann::json& row, const nlohmann::json& report) {
  if (auto pct = number_of(row, "pct_of_copy")) return pct;
  auto gbps = number_of(row, "gbps"), copy = number_of(report, "ceilings.copy_gbps");
  if (gbps && copy && *copy > 0) return 100.0 * *gbps / *copy;
  return std::nullopt;
}

// The row's % of its problem's GEMM ceiling in its own run (the ceiling's median over the row's).
std::optional<double> percent_of_own_gemm_ceiling(const nlohmann::json& row, const ComputeCeilings& ceilings) {
  if (auto pct = number_of(row, "pct_of_compute_ceiling")) return pct;
  const nlohmann::json* ceiling = ceilings.of(text_of(row, "problem"));
  auto median = number_of(row, "timing.median_ms");
  auto ceiling_ms = ceiling != nullptr ? number_of(*ceiling, "median_ms") : std::nullopt;
  if (median && ceiling_ms && *median > 0) return 100.0 * *ceiling_ms / *median;
  return std::nullopt;
}

// Every run's rows by problem id and GEMM ceilings, indexed once (the table and the charts look a
// problem up, never scan a report for it), and the problems of all runs in first-seen order.
struct FleetProblems {
  std::vector<std::pair<std::string, std::string>> problems;     // (problem id, problem name)
  std::vector<std::unordered_map<std::string, ResultRows>> rows;  // per run: problem id -> its rows
  std::vector<ComputeCeilings> ceilings;                          // per run
  const ResultRows& of(std::size_t run, const std::string& problem) const {
    static const ResultRows none;
    auto it = rows[run].find(problem);
    return it == rows[run].end() ? none : it->second;
  }
};

FleetProblems group_fleet(const std::vector<FleetRun>& runs) {
  FleetProblems fleet;
  std::unordered_set<std::string> seen;
  for (const FleetRun& run : runs) {
    fleet.ceilings.emplace_back(run.report);
    auto& by_problem = fleet.rows.emplace_back();
    for (RowGroup& group : group_rows(all_results(run.report), "problem")) {
      if (seen.insert(group.value).second)
        fleet.problems.emplace_back(group.value, text_of(*group.rows.front(), "op") + " " + problem_label(*group.rows.front()));
      by_problem.emplace(group.value, std::move(group.rows));
    }
  }
  return fleet;
}

HtmlCell best_cell(const FleetRun& run, const ComputeCeilings& ceilings, const ResultRows& rows) {
  if (rows.empty()) return {kNotMeasured, "", ""};
  auto best = best_passing_variant(rows, run.report, ceilings);
  if (!best) return {"no passing variant", "fail-incorrect", ""};
  const auto pct = best->pct_of_own_ceiling();
  std::string html = "<b>" + html_escape(best->variant) + "</b> " +
                     html_escape(format_or_dash(pct, 1, best->compute_bound ? "% of GEMM ceiling" : "%")) +
                     " <span class=\"muted\">" +
                     html_escape(best->compute_bound ? format_or_dash(best->tflops, 1, " TFLOP/s") : format_or_dash(best->gbps, 0, " GB/s")) +
                     ", " + html_escape(format_ms(best->median_ms)) + " ms</span>";
  return {html, "num", pct ? format_fixed(*pct, 4) : ""};
}

std::string gpus_table(const std::vector<FleetRun>& runs) {
  std::vector<HtmlColumn> columns = {{"gpu", "GPU"}, {"sms", "SMs", true}, {"l2", "L2"}, {"copy", "copy GB/s", true},
                                     {"peak", "peak GB/s", true}, {"commit", "commit"}, {"started", "started"}, {"path", "report"}};
  std::vector<HtmlRow> rows;
  for (const FleetRun& run : runs) {
    auto l2 = number_of(run.report, "provenance.gpu.l2_bytes");
    rows.push_back({{{html_escape(run.label), "", ""},
                     {html_escape(format_or_dash(number_of(run.report, "provenance.gpu.sm_count"), 0)), "num", ""},
                     {html_escape(l2 ? format_bytes(*l2) : kNotMeasured), "", ""},
                     {html_escape(format_or_dash(number_of(run.report, "ceilings.copy_gbps"), 0)), "num", ""},
                     {html_escape(format_or_dash(number_of(run.report, "ceilings.peak_gbps"), 0)), "num", ""},
                     {html_escape(text_of(run.report, "provenance.git_commit").substr(0, 10)), "", ""},
                     {html_escape(text_of(run.report, "provenance.started_at")), "", ""},
                     {html_escape(run.path), "", ""}},
                    "", {}});
  }
  return render_html_table(columns, rows, "fleet-gpus");
}

std::string best_table(const std::vector<FleetRun>& runs, const FleetProblems& fleet) {
  std::vector<HtmlColumn> columns = {{"problem", "problem"}};
  for (const FleetRun& run : runs) columns.push_back({"gpu-" + run.label, run.label, true});
  std::vector<HtmlRow> rows;
  for (const auto& [problem, name] : fleet.problems) {
    HtmlRow row{{{"<span title=\"" + html_escape(problem) + "\">" + html_escape(name) + "</span>", "", problem}}, "",
                {{"problem", problem}}};
    for (std::size_t r = 0; r < runs.size(); ++r)
      row.cells.push_back(best_cell(runs[r], fleet.ceilings[r], fleet.of(r, problem)));
    rows.push_back(row);
  }
  return render_html_table(columns, rows, "fleet");
}

std::string best_bar_charts(const std::vector<FleetRun>& runs, const FleetProblems& fleet) {
  std::string html = "<div class=\"charts\">\n";
  for (const auto& [problem, name] : fleet.problems) {
    bool compute_bound = false;
    for (std::size_t r = 0; r < runs.size(); ++r)
      compute_bound = compute_bound || fleet.ceilings[r].any_compute_bound(fleet.of(r, problem));
    BarChart chart{name + (compute_bound ? ": best passing variant, % of own GEMM ceiling" : ": best passing variant, % of own ceiling"),
                   "%", {}, 100.0, compute_bound ? "GEMM ceiling" : "copy ceiling"};
    for (std::size_t r = 0; r < runs.size(); ++r) {
      const ResultRows& rows = fleet.of(r, problem);
      if (rows.empty()) continue;
      auto best = best_passing_variant(rows, runs[r].report, fleet.ceilings[r]);
      chart.bars.push_back({runs[r].label, best ? best->pct_of_own_ceiling() : std::nullopt, best ? "" : "fail-incorrect",
                            best ? best->variant : "no passing variant"});
    }
    html += render_bar_chart_svg(chart);
  }
  return html + "</div>\n";
}

}  // namespace

std::optional<BestVariant> best_passing_variant(const ResultRows& problem_rows, const nlohmann::json& report,
                                                const ComputeCeilings& ceilings) {
  std::optional<BestVariant> best;
  for (const nlohmann::json* row : problem_rows) {
    if (!is_trusted_pass(*row)) continue;
    double median = *number_of(*row, "timing.median_ms");
    if (best && best->median_ms <= median) continue;
    best = BestVariant{text_of(*row, "variant"), median, number_of(*row, "gbps"), percent_of_own_ceiling(*row, report),
                       number_of(*row, "tflops"), percent_of_own_gemm_ceiling(*row, ceilings), ceilings.is_compute_bound(*row)};
  }
  return best;
}

std::vector<FleetRun> label_fleet_runs(std::vector<std::pair<std::string, nlohmann::json>> path_and_report) {
  std::map<std::string, int> uses;
  for (const auto& entry : path_and_report) ++uses[gpu_name_of(entry.second)];
  std::vector<FleetRun> runs;
  for (auto& [path, report] : path_and_report) {
    std::string label = gpu_name_of(report);
    // Several reports of one GPU model (two H200s of a host, or runs of different days): the
    // run id, which is the report's folder name (<UTC>-gpu<i> for `run --devices`), else the
    // start time.
    const std::string run_id = std::filesystem::path(path).parent_path().filename().string();
    if (uses[label] > 1) label += " (" + (run_id.empty() ? text_of(report, "provenance.started_at") : run_id) + ")";
    runs.push_back({path, label, std::move(report)});
  }
  return runs;
}

std::string render_fleet_html(const std::vector<FleetRun>& runs) {
  std::string body = "<header><h1>normbench fleet: " + std::to_string(runs.size()) + " reports</h1>\n";
  body += "<p class=\"muted\">Per problem, each GPU's fastest variant that passed with trusted timing (incorrect, skipped, "
          "failed and faster-than-light or stream-escaping rows are left out), as % of that GPU's own measured copy ceiling; compute-bound problems as % of that GPU's own GEMM ceiling of the problem "
          "(the library GEMM alone at the problem's precision).</p></header>\n";
  body += "<h2>GPUs</h2>\n" + gpus_table(runs);
  const FleetProblems fleet = group_fleet(runs);
  body += "<h2>Best passing variant per problem</h2>\n" + best_table(runs, fleet);
  body += "<h2>% of own ceiling, side by side</h2>\n" + best_bar_charts(runs, fleet);
  return render_html_page("normbench fleet", body);
}

}  // namespace nb
