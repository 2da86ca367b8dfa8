#include "harness/report/compare/compare_output.hpp"

#include "harness/report/json_nulls.hpp"
#include "harness/report/report_format.hpp"
#include "harness/report/text_table.hpp"

#include <algorithm>

namespace nb {
namespace {

const TimingChange kAllChanges[] = {TimingChange::Slower, TimingChange::Faster, TimingChange::Same,
                                    TimingChange::Untimed, TimingChange::Added, TimingChange::Removed};

std::string verdict_text(const ComparedRow& row) {
  std::string text = row.base_verdict.empty() ? row.new_verdict
                     : row.new_verdict.empty() || row.new_verdict == row.base_verdict
                         ? row.base_verdict
                         : row.base_verdict + " -> " + row.new_verdict;
  for (const std::string& change : row.distribution_changes) text += "; " + change;
  return text;
}

std::string ms_text(const std::optional<double>& ms) { return ms ? format_ms(*ms) : kNotMeasured; }

std::string identity_line(const char* label, const RunIdentity& run) {
  return std::string(label) + run.path + "  (" + run.gpu + ", commit " + run.commit.substr(0, 10) + ", " + run.started_at + ")\n";
}

nlohmann::json row_json(const ComparedRow& row) {
  return {{"op", row.op}, {"problem", row.problem}, {"variant", row.variant}, {"change", change_name(row.change)},
          {"base_verdict", text_or_null(row.base_verdict)}, {"new_verdict", text_or_null(row.new_verdict)},
          {"verdict_changed", row.verdict_changed()}, {"verdict_regressed", row.verdict_regressed()},
          {"distribution_changes", row.distribution_changes}, {"base_median_ms", optional_json(row.base_median_ms)},
          {"new_median_ms", optional_json(row.new_median_ms)}, {"ratio", optional_json(row.ratio)},
          {"noise_pct", optional_json(row.noise_pct)}};
}

nlohmann::json identity_json(const RunIdentity& run) {
  return {{"path", run.path}, {"gpu", run.gpu}, {"git_commit", run.commit}, {"started_at", run.started_at}};
}

}  // namespace

std::vector<std::string> compare_columns() {
  return {"change", "verdict", "new/base", "base ms", "new ms", "noise", "op", "problem", "variant"};
}

std::vector<std::string> compared_row_cells(const ComparedRow& row) {
  return {change_name(row.change), verdict_text(row), row.ratio ? format_fixed(*row.ratio, 3) : kNotMeasured,
          ms_text(row.base_median_ms), ms_text(row.new_median_ms),
          row.noise_pct ? "\u00b1" + format_fixed(*row.noise_pct, 1) + "%" : kNotMeasured,
          row.op, row.problem, row.variant};
}

std::string comparison_counts_line(const Comparison& comparison) {
  auto count = [&](auto predicate) { return std::count_if(comparison.rows.begin(), comparison.rows.end(), predicate); };
  std::string line = std::to_string(count([](const ComparedRow& r) { return r.verdict_changed(); })) + " verdict changes (" +
                     std::to_string(count([](const ComparedRow& r) { return r.verdict_regressed(); })) + " from passed)";
  for (TimingChange change : kAllChanges)
    line += ", " + std::string(change_name(change)) + " " +
            std::to_string(count([change](const ComparedRow& r) { return r.change == change; }));
  return line;
}

std::string noise_rule_text(const NoiseRule& rule) {
  return "a pair differs when |new/base - 1| > max(" + format_fixed(rule.min_pct, 1) + "%, " +
         format_fixed(rule.spread_multiplier, 2) + " x sqrt(spread_base^2 + spread_new^2), " +
         format_fixed(rule.min_us, 2) + " us / base median), spread = (p90 - p10) / median";
}

std::string render_compare_text(const Comparison& comparison, const std::optional<RegressionCheck>& check) {
  std::string text = "normbench compare\n" + identity_line("base: ", comparison.base) + identity_line("new:  ", comparison.candidate);
  for (const std::string& warning : comparison.warnings) text += "WARNING: " + warning + "\n";
  for (const std::string& line : comparison.context) text += "context: " + line + "\n";
  text += "noise rule: " + noise_rule_text(comparison.rule) + "\n" + comparison_counts_line(comparison) + "\n\n";
  std::vector<std::vector<std::string>> cells;
  for (const ComparedRow& row : comparison.rows) cells.push_back(compared_row_cells(row));
  text += render_text_table(compare_columns(), cells, {2, 3, 4, 5});
  if (check) {
    text += "\n--fail-on-regression " + format_fixed(check->threshold_pct, 1) + "%: " +
            (check->failed() ? "FAILED" : "ok") + "\n";
    for (const std::string& reason : check->reasons) text += "  " + reason + "\n";
  }
  return text;
}

nlohmann::json compare_to_json(const Comparison& comparison, const std::optional<RegressionCheck>& check) {
  nlohmann::json counts = nlohmann::json::object();
  for (TimingChange change : kAllChanges)
    counts[change_name(change)] = std::count_if(comparison.rows.begin(), comparison.rows.end(),
                                                [change](const ComparedRow& r) { return r.change == change; });
  counts["verdict_changes"] = std::count_if(comparison.rows.begin(), comparison.rows.end(), [](const ComparedRow& r) { return r.verdict_changed(); });
  nlohmann::json rows = nlohmann::json::array();
  for (const ComparedRow& row : comparison.rows) rows.push_back(row_json(row));
  nlohmann::json regression;
  if (check) regression = {{"threshold_pct", check->threshold_pct}, {"failed", check->failed()}, {"reasons", check->reasons}};
  return {{"schema", "normbench.compare"}, {"schema_version", 1},
          {"base", identity_json(comparison.base)}, {"new", identity_json(comparison.candidate)},
          {"same_gpu", comparison.base.gpu == comparison.candidate.gpu}, {"warnings", comparison.warnings},
          {"context", comparison.context},
          {"noise_rule",
           {{"min_pct", comparison.rule.min_pct},
            {"spread_multiplier", comparison.rule.spread_multiplier},
            {"min_us", comparison.rule.min_us}}},
          {"counts", counts}, {"rows", rows}, {"regression", regression}};
}

}  // namespace nb
