// The report page's library plans (report_plans.hpp).
#include "harness/report/page/report_plans.hpp"

#include <algorithm>
#include <vector>

#include "harness/report/html_escape.hpp"
#include "harness/report/html_table.hpp"
#include "harness/report/json_fields.hpp"
#include "harness/report/report_format.hpp"

namespace nb {
namespace {

struct PlanRow {
  std::string problem;
  const nlohmann::json* plan;
  double seconds;
};

std::vector<PlanRow> plan_rows(const nlohmann::json& report) {
  std::vector<PlanRow> rows;
  const nlohmann::json* problems = field_path(report, "phases.problems");
  if (!problems || !problems->is_array()) return rows;
  for (const auto& p : *problems) {
    const nlohmann::json* plans = field(p, "plans");
    if (!plans || !plans->is_array()) continue;
    for (const auto& plan : *plans) rows.push_back({text_of(p, "problem"), &plan, number_of(plan, "seconds").value_or(0)});
  }
  std::stable_sort(rows.begin(), rows.end(), [](const PlanRow& a, const PlanRow& b) { return a.seconds > b.seconds; });
  return rows;
}

// "3 built or refused in 52.1 s, 5 loaded in 0.31 s; plan cache: /home/u/.cache/... (HOME)"
std::string summary_text(const nlohmann::json& report, const std::vector<PlanRow>& rows) {
  int loaded = 0;
  double load_s = 0, build_s = 0;
  for (const PlanRow& r : rows) {
    const bool hit = text_of(*r.plan, "source") == "loaded";
    loaded += hit;
    (hit ? load_s : build_s) += r.seconds;
  }
  std::string text = std::to_string(rows.size() - std::size_t(loaded)) + " built or refused in " +
                     format_fixed(build_s, 2) + " s, " + std::to_string(loaded) + " loaded from the plan cache in " +
                     format_fixed(load_s, 2) + " s";
  if (const nlohmann::json* ahead = field_path(report, "phases.validation.plans_ahead");
      ahead && ahead->is_object() && number_of(*ahead, "tasks").value_or(0) > 0)
    text += "; built ahead beside the validation: " + text_of(*ahead, "planned") + " of " + text_of(*ahead, "tasks") +
            " on " + text_of(*ahead, "threads") + " threads in " + format_fixed(number_of(*ahead, "wall_s").value_or(0), 2) +
            " s (" + text_of(*ahead, "taken_back") + " taken back, " + text_of(*ahead, "failed") + " failed)";
  if (const nlohmann::json* cache = field_path(report, "settings.plan_cache"); cache && cache->is_object()) {
    const std::string folder = text_of(*cache, "folder");
    text += "; plan cache: " + (folder.empty() ? std::string("off") : folder) + " (" + text_of(*cache, "origin") + ")";
  }
  return text;
}

}  // namespace

std::string render_plans_html(const nlohmann::json& report) {
  const std::vector<PlanRow> rows = plan_rows(report);
  if (rows.empty()) return "";
  std::vector<HtmlRow> table;
  for (const PlanRow& r : rows) {
    const nlohmann::json& plan = *r.plan;
    table.push_back({{{html_escape(r.problem), "", ""},
                      {html_escape(text_of(plan, "variant")), "", ""},
                      {html_escape(text_of(plan, "plan")), "", ""},
                      {html_escape(text_of(plan, "source")), "", ""},
                      {format_fixed(r.seconds, 3), "num", format_fixed(r.seconds, 6)},
                      {text_of(plan, "runtime_compiled") == "true" ? "yes" : "no", "", ""},
                      {html_escape(text_of(plan, "status")), "", ""}},
                     "",
                     {}});
  }
  return "<details><summary>library plans: " + html_escape(summary_text(report, rows)) + "</summary>\n" +
         render_html_table({{"problem", "problem", false},
                            {"variant", "variant", false},
                            {"plan", "plan", false},
                            {"source", "source", false},
                            {"seconds", "seconds", true},
                            {"rtc", "compiled at run time", false},
                            {"status", "engine and status", false}},
                           table, "results plans") +
         "</details>\n";
}

}  // namespace nb
