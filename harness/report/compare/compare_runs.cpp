#include "harness/report/compare/compare_runs.hpp"

#include "harness/report/json_fields.hpp"
#include "harness/report/report_compute.hpp"
#include "harness/report/report_format.hpp"
#include "harness/report/report_provenance.hpp"
#include "harness/report/report_rows.hpp"
#include "harness/report/result_classes.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace nb {
namespace {

using RowKey = std::pair<std::string, std::string>;  // (problem id, variant)

RowKey key_of(const nlohmann::json& row) { return {text_of(row, "problem"), text_of(row, "variant")}; }

std::optional<TimingSpread> spread_of(const nlohmann::json& row) {
  auto median = number_of(row, "timing.median_ms"), p10 = number_of(row, "timing.p10_ms"), p90 = number_of(row, "timing.p90_ms");
  if (!median || *median <= 0) return std::nullopt;
  return TimingSpread{*median, p10.value_or(*median), p90.value_or(*median)};
}

double relative_spread(const TimingSpread& t) { return std::max(0.0, t.p90_ms - t.p10_ms) / t.median_ms; }

std::map<std::string, std::string> distribution_verdicts(const nlohmann::json& row) {
  std::map<std::string, std::string> verdicts;
  const nlohmann::json* list = field_path(row, "validation.per_distribution");
  if (list != nullptr && list->is_array())
    for (const auto& d : *list) verdicts[text_of(d, "distribution")] = text_of(d, "verdict");
  return verdicts;
}

std::vector<std::string> distribution_changes(const nlohmann::json& base, const nlohmann::json& candidate) {
  std::vector<std::string> changes;
  auto before = distribution_verdicts(base), after = distribution_verdicts(candidate);
  for (const auto& [name, verdict] : after) {
    auto it = before.find(name);
    if (it != before.end() && it->second != verdict) changes.push_back(name + ": " + it->second + " -> " + verdict);
  }
  return changes;
}

// The stress distributions a row is fragile on, with the error as a multiple of its bound.
std::map<std::string, double> fragile_shares(const nlohmann::json& row) {
  std::map<std::string, double> shares;
  const nlohmann::json* list = field_path(row, "validation.fragile");
  if (list != nullptr && list->is_array())
    for (const auto& f : *list) shares[text_of(f, "distribution")] = number_of(f, "share_of_bound").value_or(0);
  return shares;
}

std::string fragile_text(const std::map<std::string, double>& shares) {
  std::string text;
  for (const auto& [name, share] : shares) text += (text.empty() ? "" : ", ") + name + " " + format_ratio(share) + "x";
  return text.empty() ? "none" : text;
}

// "fragile: none -> wide 53x" when the set of fragile distributions changed (the shares alone
// move from run to run).
std::optional<std::string> fragile_change(const nlohmann::json& base, const nlohmann::json& candidate) {
  const auto before = fragile_shares(base), after = fragile_shares(candidate);
  const auto names = [](const std::map<std::string, double>& m) {
    std::vector<std::string> n;
    for (const auto& [name, share] : m) n.push_back(name);
    return n;
  };
  if (names(before) == names(after)) return std::nullopt;
  return "fragile: " + fragile_text(before) + " -> " + fragile_text(after);
}

ComparedRow named_row(const nlohmann::json& row, TimingChange change) {
  ComparedRow compared;
  compared.op = text_of(row, "op");
  compared.problem = text_of(row, "problem");
  compared.variant = text_of(row, "variant");
  compared.change = change;
  return compared;
}

ComparedRow one_side_row(const nlohmann::json& row, TimingChange change) {
  ComparedRow compared = named_row(row, change);
  (change == TimingChange::Added ? compared.new_verdict : compared.base_verdict) = verdict_of(row);
  (change == TimingChange::Added ? compared.new_median_ms : compared.base_median_ms) = number_of(row, "timing.median_ms");
  return compared;
}

ComparedRow paired_row(const nlohmann::json& base, const nlohmann::json& candidate, const NoiseRule& rule) {
  ComparedRow compared = named_row(candidate, TimingChange::Untimed);
  compared.base_verdict = verdict_of(base);
  compared.new_verdict = verdict_of(candidate);
  compared.distribution_changes = distribution_changes(base, candidate);
  if (auto fragile = fragile_change(base, candidate)) compared.distribution_changes.push_back(*fragile);
  auto before = spread_of(base), after = spread_of(candidate);
  if (before) compared.base_median_ms = before->median_ms;
  if (after) compared.new_median_ms = after->median_ms;
  if (!before || !after) return compared;
  compared.ratio = after->median_ms / before->median_ms;
  compared.noise_pct = noise_threshold_pct(*before, *after, rule);
  compared.change = classify_timing(*before, *after, rule);
  return compared;
}

// Reading order: verdict regressions, other verdict changes, SLOWER, FASTER, SAME, UNTIMED,
// ADDED, REMOVED.
int display_rank(const ComparedRow& row) {
  if (row.verdict_regressed()) return 0;
  if (row.verdict_changed()) return 1;
  switch (row.change) {
    case TimingChange::Slower: return 2;
    case TimingChange::Faster: return 3;
    case TimingChange::Same: return 4;
    case TimingChange::Untimed: return 5;
    case TimingChange::Added: return 6;
    case TimingChange::Removed: return 7;
  }
  return 8;
}

void order_for_reading(std::vector<ComparedRow>& rows) {
  std::stable_sort(rows.begin(), rows.end(), [](const ComparedRow& a, const ComparedRow& b) {
    int rank_a = display_rank(a), rank_b = display_rank(b);
    if (rank_a != rank_b) return rank_a < rank_b;
    if (a.change == TimingChange::Slower && b.change == TimingChange::Slower) return *a.ratio > *b.ratio;
    if (a.change == TimingChange::Faster && b.change == TimingChange::Faster) return *a.ratio < *b.ratio;
    return false;
  });
}

std::optional<TimingSpread> ceiling_spread_of(const nlohmann::json& ceiling) {
  auto median = number_of(ceiling, "median_ms"), p10 = number_of(ceiling, "p10_ms"), p90 = number_of(ceiling, "p90_ms");
  if (!median || *median <= 0) return std::nullopt;
  return TimingSpread{*median, p10.value_or(*median), p90.value_or(*median)};
}

// One line per problem whose GEMM ceiling moved beyond the noise rule between the runs.
std::vector<std::string> gemm_ceiling_changes(const nlohmann::json& base, const nlohmann::json& candidate, const NoiseRule& rule) {
  std::vector<std::string> lines;
  const nlohmann::json* ceilings = field(candidate, "compute_ceilings");
  if (ceilings == nullptr || !ceilings->is_array()) return lines;
  const ComputeCeilings base_ceilings(base);
  for (const auto& after : *ceilings) {
    const std::string problem = text_of(after, "problem");
    const nlohmann::json* before = base_ceilings.of(problem);
    if (before == nullptr) continue;
    auto old_time = ceiling_spread_of(*before), new_time = ceiling_spread_of(after);
    if (!old_time || !new_time || classify_timing(*old_time, *new_time, rule) == TimingChange::Same) continue;
    std::string kernels = text_of(*before, "kernel") == text_of(after, "kernel")
                              ? text_of(after, "kernel")
                              : text_of(*before, "kernel") + " -> " + text_of(after, "kernel");
    double change = 100.0 * (new_time->median_ms / old_time->median_ms - 1.0);
    lines.push_back("GEMM ceiling of " + problem + " (" + kernels + ") " + format_ms(old_time->median_ms) + " -> " +
                    format_ms(new_time->median_ms) + " ms (" + (change > 0 ? "+" : "") + format_fixed(change, 1) +
                    "%, noise \u00b1" + format_fixed(noise_threshold_pct(*old_time, *new_time, rule), 1) +
                    "%): the library or the clocks moved, so this problem's rows moved with them");
  }
  return lines;
}

RunIdentity identity_of(const nlohmann::json& report) {
  return {"", gpu_name_of(report), text_of(report, "provenance.git_commit"), text_of(report, "provenance.started_at")};
}

}  // namespace

const char* change_name(TimingChange change) {
  switch (change) {
    case TimingChange::Same: return "SAME";
    case TimingChange::Faster: return "FASTER";
    case TimingChange::Slower: return "SLOWER";
    case TimingChange::Untimed: return "UNTIMED";
    case TimingChange::Added: return "ADDED";
    case TimingChange::Removed: return "REMOVED";
  }
  return "?";
}

double noise_threshold_pct(const TimingSpread& base, const TimingSpread& candidate, const NoiseRule& rule) {
  double combined = std::hypot(relative_spread(base), relative_spread(candidate));
  const double resolution_pct = base.median_ms > 0 ? 100.0 * rule.min_us * 1e-3 / base.median_ms : 0.0;
  return std::max({rule.min_pct, 100.0 * rule.spread_multiplier * combined, resolution_pct});
}

TimingChange classify_timing(const TimingSpread& base, const TimingSpread& candidate, const NoiseRule& rule) {
  // Compared in milliseconds: a difference exactly at the threshold (min_us, say) is noise,
  // whatever the rounding of the percentages in between.
  const double difference_ms = candidate.median_ms - base.median_ms;
  const double threshold_ms = noise_threshold_pct(base, candidate, rule) / 100.0 * base.median_ms;
  if (std::fabs(difference_ms) <= threshold_ms * (1 + 1e-9)) return TimingChange::Same;
  return difference_ms > 0 ? TimingChange::Slower : TimingChange::Faster;
}

bool ComparedRow::verdict_changed() const {
  return !base_verdict.empty() && !new_verdict.empty() && (base_verdict != new_verdict || !distribution_changes.empty());
}

bool ComparedRow::verdict_regressed() const {
  return !base_verdict.empty() && !new_verdict.empty() && base_verdict == "passed" && new_verdict != "passed";
}

// "base is a partial report (aborted: ...; 12 case(s) not run)", or "" for a complete run.
static std::string partial_run_warning(const char* side, const nlohmann::json& report) {
  const bool interrupted = report.value("interrupted", nlohmann::json(false)) == true;
  const std::string aborted = text_of(report, "aborted");
  if (!interrupted && aborted.empty()) return "";
  const std::size_t not_run = strings_of(report, "not_run").size();
  return std::string(side) + " is a partial report (" + (interrupted ? "interrupted" : "aborted: " + aborted) + "; " +
         std::to_string(not_run) + " case(s) not run, shown without timing)";
}

// "the tensors were placed differently (base: aligned, new: misaligned); ...", or "" when both runs
// placed them alike (a report older than minor 10 placed them aligned).
static std::string placement_warning(const nlohmann::json& base, const nlohmann::json& candidate) {
  const auto placement = [](const nlohmann::json& report) {
    const std::string p = text_of(report, "settings.tensor_placement");
    return p == "misaligned" ? p : std::string("aligned");
  };
  if (placement(base) == placement(candidate)) return "";
  return "the tensors were placed differently (base: " + placement(base) + ", new: " + placement(candidate) +
         "); verdicts and times compare the placement as well as code";
}

// "the runs set NORMBENCH_ROWS_IN_FLIGHT differently (base: 3, new: the device's choice); ...", or ""
// when both set it alike (a report older than minor 11 let the device choose).
static std::string rows_in_flight_warning(const nlohmann::json& base, const nlohmann::json& candidate) {
  const auto setting = [](const nlohmann::json& report) {
    const std::string s = text_of(report, "settings.rows_in_flight");
    return s.empty() ? std::string("the device's choice") : s;
  };
  if (setting(base) == setting(candidate)) return "";
  return "the runs set NORMBENCH_ROWS_IN_FLIGHT differently (base: " + setting(base) + ", new: " +
         setting(candidate) + "); the row ops' rows of 16384 bf16/fp16 values ran different kernels";
}

Comparison compare_reports(const nlohmann::json& base, const nlohmann::json& candidate, const NoiseRule& rule) {
  Comparison comparison{identity_of(base), identity_of(candidate), rule, {}, gemm_ceiling_changes(base, candidate, rule), {}};
  if (comparison.base.gpu != comparison.candidate.gpu)
    comparison.warnings.push_back("the runs are on different GPUs (base: " + comparison.base.gpu + ", new: " +
                                  comparison.candidate.gpu + "); ratios compare hardware as well as code");
  for (const auto& [side, report] : {std::pair<const char*, const nlohmann::json*>{"base", &base}, {"new", &candidate}})
    if (std::string w = partial_run_warning(side, *report); !w.empty()) comparison.warnings.push_back(w);
  for (const std::string& w : {placement_warning(base, candidate), rows_in_flight_warning(base, candidate)})
    if (!w.empty()) comparison.warnings.push_back(w);
  std::map<RowKey, const nlohmann::json*> base_rows;
  for (const nlohmann::json* row : all_results(base)) base_rows.emplace(key_of(*row), row);
  for (const nlohmann::json* row : all_results(candidate)) {
    auto match = base_rows.find(key_of(*row));
    if (match == base_rows.end()) {
      comparison.rows.push_back(one_side_row(*row, TimingChange::Added));
      continue;
    }
    comparison.rows.push_back(paired_row(*match->second, *row, rule));
    base_rows.erase(match);
  }
  for (const nlohmann::json* row : all_results(base))
    if (base_rows.count(key_of(*row))) comparison.rows.push_back(one_side_row(*row, TimingChange::Removed));
  order_for_reading(comparison.rows);
  return comparison;
}

RegressionCheck check_regressions(const Comparison& comparison, double threshold_pct) {
  RegressionCheck check{threshold_pct, {}};
  for (const ComparedRow& row : comparison.rows) {
    std::string name = row.problem + " " + row.variant;
    if (row.verdict_regressed()) check.reasons.push_back(name + ": verdict " + row.base_verdict + " -> " + row.new_verdict);
    if (row.change == TimingChange::Slower && *row.ratio > 1.0 + threshold_pct / 100.0)
      check.reasons.push_back(name + ": " + format_fixed(100.0 * (*row.ratio - 1.0), 1) + "% slower (limit " +
                              format_fixed(threshold_pct, 1) + "%)");
  }
  return check;
}

}  // namespace nb
