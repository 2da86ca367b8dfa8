#include "harness/report/page/report_phases.hpp"

#include <cstdio>
#include <map>
#include <vector>

#include "harness/report/html_escape.hpp"
#include "harness/report/html_table.hpp"
#include "harness/report/json_fields.hpp"
#include "harness/report/report_format.hpp"
#include "harness/report/page/report_plans.hpp"

namespace nb {
namespace {

struct PhaseLine {
  std::string label;
  const char* path;  // in report.phases
  int depth;         // 0: a phase of the run, 1: a part of the one above, 2: a part of that part
};

const std::vector<PhaseLine>& phase_lines() {
  static const std::vector<PhaseLine> lines = {
      {"set-up (provenance, NVML, CUDA context)", "setup_s", 0},
      {"copy ceiling", "copy_ceiling_s", 0},
      {"validation", "validation_s", 0},
      {"variants prepared, buffers allocated", "validation.prepare_s", 1},
      {"library plans built or refused (plan cache misses)", "validation.plan_build_s", 2},
      {"library plans loaded from the plan cache (hits)", "validation.plan_load_s", 2},
      {"the wait for plans being built ahead on host threads", "validation.plans_ahead.waited_s", 2},
      {"inputs drawn", "validation.draw_s", 1},
      {"float64 reference and conditions", "validation.reference_s", 1},
      {"Eigen audit of the device reference", "validation.audit_s", 1},
      {"its copies from the device, before the variants", "validation.audit_gather_s", 2},
      {"the wait for its host part, not hidden by the variants", "validation.audit_wait_s", 2},
      {"uploads and input hashes", "validation.upload_s", 1},
      {"the variants' launches and comparisons", "validation.variants_s", 1},
      {"one untimed launch a case, its kernels recorded (CUPTI)", "validation.launches_s", 1},
      {"timing", "timing_s", 0},
      {"timing buffers filled", "timing.inputs_s", 1},
      {"compute ceilings (GEMM alone)", "timing.compute_ceilings_s", 1},
      {"warm-up and timed samples", "timing.samples_s", 1},
      {"wall-clock brackets", "timing.brackets_s", 1},
      {"checks after the timed loop", "timing.rechecks_s", 1},
      {"other", "other_s", 0},
  };
  return lines;
}

HtmlCell seconds_cell(const std::optional<double>& s) {
  return {format_or_dash(s, 2), "num", s ? format_fixed(*s, 6) : ""};
}

std::string breakdown_html(const nlohmann::json& phases) {
  const double total = number_of(phases, "total_s").value_or(0);
  std::vector<HtmlRow> rows;
  for (const PhaseLine& line : phase_lines()) {
    const auto s = number_of(phases, line.path);
    const std::string share = s && total > 0 ? format_fixed(100 * *s / total, 1) + "%" : kNotMeasured;
    std::string indent;
    for (int d = 0; d < line.depth; ++d) indent += "&nbsp;&nbsp;&nbsp;";
    rows.push_back({{{indent + html_escape(line.label), "", ""},
                     seconds_cell(s),
                     {share, "num", ""}},
                    line.depth ? "part" : "",
                    {}});
  }
  rows.push_back({{{"<b>total</b>", "", ""}, seconds_cell(total), {"100%", "num", ""}}, "", {}});
  return render_html_table({{"phase", "phase", false}, {"seconds", "seconds", true}, {"share", "share", true}}, rows,
                           "phases");
}

// Where a problem's reference was computed and what Eigen's audit of it found, from one of its
// rows: "device; 64 of 32768 rows x 18 trials, worst 2.1e-06 of the bound", or "host: why".
std::string reference_text(const nlohmann::json& row) {
  const nlohmann::json* r = field_path(row, "validation.reference");
  if (!r || !r->is_object()) return "";
  if (text_of(*r, "computed_on") != "device") return "host: " + text_of(*r, "why_host");
  std::string text = "device;";
  if (const nlohmann::json* families = field_path(*r, "audit.families"); families && families->is_array())
    for (const auto& f : *families)
      text += " " + text_of(f, "slices") + " of " + text_of(f, "of") + " " + text_of(f, "unit") + "s";
  char worst[32];
  std::snprintf(worst, sizeof worst, "%.2g", number_of(*r, "audit.worst_share_of_bound").value_or(0));
  return text + " x " + text_of(*r, "audit.trials") + " trials, worst " + worst + " of the bound";
}

// Each problem's shared phases and the sum of its rows' own.
std::string per_problem_html(const nlohmann::json& report) {
  std::map<std::string, std::pair<double, double>> own;  // problem -> (validation, timing incl. brackets)
  std::map<std::string, std::string> reference;           // problem -> reference_text
  for (const auto& row : report.at("results")) {
    const std::string problem = text_of(row, "problem");
    if (reference[problem].empty()) reference[problem] = reference_text(row);
    auto& [validation, timing] = own[problem];
    if (const nlohmann::json* per = field_path(row, "phases.validation_s"); per && per->is_object())
      for (const auto& [name, s] : per->items())
        if (s.is_number()) validation += s.get<double>();
    validation += number_of(row, "phases.launches_s").value_or(0);  // minor 12
    for (const char* key : {"phases.timing_s", "phases.bracket_s", "phases.recheck_s"})
      timing += number_of(row, key).value_or(0);
  }
  std::vector<HtmlRow> rows;
  const nlohmann::json* problems = field_path(report, "phases.problems");
  if (!problems || !problems->is_array()) return "";
  for (const auto& p : *problems) {
    const std::string problem = text_of(p, "problem");
    const auto& [validation, timing] = own[problem];
    rows.push_back({{{html_escape(problem), "", ""},
                     {html_escape(reference[problem].empty() ? text_of(p, "reference") : reference[problem]), "", ""},
                     seconds_cell(number_of(p, "prepare_s")),
                     seconds_cell(number_of(p, "draw_s")),
                     seconds_cell(number_of(p, "reference_s")),
                     seconds_cell(number_of(p, "audit_s")),
                     seconds_cell(number_of(p, "audit_gather_s")),
                     seconds_cell(number_of(p, "audit_wait_s")),
                     seconds_cell(number_of(p, "upload_s")),
                     seconds_cell(validation),
                     seconds_cell(number_of(p, "timing_inputs_s")),
                     seconds_cell(number_of(p, "ceiling_s")),
                     seconds_cell(timing)},
                    "",
                    {}});
  }
  return render_html_table({{"problem", "problem", false},
                            {"reference", "reference", false},
                            {"prepare", "prepare s", true},
                            {"draw", "draw s", true},
                            {"ref", "reference s", true},
                            {"audit", "audit s", true},
                            {"audit_gather", "of it: copies s", true},
                            {"audit_wait", "of it: wait s", true},
                            {"upload", "upload s", true},
                            {"variants", "variants' validation s", true},
                            {"tinputs", "timing buffers s", true},
                            {"ceiling", "GEMM ceiling s", true},
                            {"timing", "variants' timing s", true}},
                           rows, "results phases-per-problem");
}

}  // namespace

std::string render_phases_html(const nlohmann::json& report) {
  const nlohmann::json* phases = field(report, "phases");
  if (!phases || !phases->is_object()) return "";
  std::string html = "<section id=\"phases\"><h2>Where the time went</h2>\n";
  html += "<p class=\"muted\">Host wall-clock seconds of this run by phase; not compared between runs.</p>\n";
  html += breakdown_html(*phases);
  html += "<details><summary>per problem</summary>\n" + per_problem_html(report) + "</details>\n";
  html += render_plans_html(report);
  return html + "</section>\n";
}

}  // namespace nb
