#include "harness/report/page/report_results_table.hpp"

#include "harness/report/html_escape.hpp"
#include "harness/report/html_table.hpp"
#include "harness/report/json_fields.hpp"
#include "harness/report/page/report_kernels.hpp"
#include "harness/report/report_compute.hpp"
#include "harness/report/report_format.hpp"
#include "harness/report/result_classes.hpp"

namespace nb {
namespace {

std::string sort_key(const std::optional<double>& value) { return value ? format_fixed(*value, 6) : ""; }

HtmlCell number_cell(const std::optional<double>& value, int decimals, const std::string& suffix = "") {
  return {html_escape(format_or_dash(value, decimals, suffix)), "num", sort_key(value)};
}

HtmlCell ratio_cell(const std::optional<double>& ratio) {
  return {html_escape(ratio ? format_ratio(*ratio) + "\u00d7" : kNotMeasured), "num", sort_key(ratio)};
}

HtmlCell median_cell(const nlohmann::json& row) {
  auto median = number_of(row, "timing.median_ms");
  std::string text = median ? format_ms(*median) : kNotMeasured;
  return {html_escape(text), "num", sort_key(median)};
}

// p10-p90, sorted by the relative spread (p90 - p10) / median.
HtmlCell spread_cell(const nlohmann::json& row) {
  auto p10 = number_of(row, "timing.p10_ms"), p90 = number_of(row, "timing.p90_ms"), median = number_of(row, "timing.median_ms");
  if (!p10 || !p90) return {kNotMeasured, "num", ""};
  std::string relative = median && *median > 0 ? format_fixed(100 * (*p90 - *p10) / *median, 1) + "%" : "";
  return {html_escape(format_ms(*p10) + "\u2013" + format_ms(*p90)) + "<br><span class=\"muted\">" + relative + "</span>",
          "num", median && *median > 0 ? format_fixed((*p90 - *p10) / *median, 6) : ""};
}

HtmlCell percent_of_ceiling_cell(const nlohmann::json& row) {
  HtmlCell cell = number_cell(number_of(row, "pct_of_copy"), 1, "%");
  if (contains_string(strings_of(row, "flags"), "fits_in_l2"))
    cell.html = "<span title=\"fits in L2: not comparable with the copy ceiling\" class=\"muted\">" + cell.html + " (L2)</span>";
  return cell;
}

// % of the problem's GEMM ceiling (the library GEMM alone at the problem's precision), with the
// ceiling kernel and its time as the tooltip.
HtmlCell percent_of_gemm_ceiling_cell(const ComputeCeilings& ceilings, const nlohmann::json& row) {
  HtmlCell cell = number_cell(number_of(row, "pct_of_compute_ceiling"), 1, "%");
  const nlohmann::json* ceiling = ceilings.of(text_of(row, "problem"));
  if (ceiling == nullptr) return cell;
  auto median = number_of(*ceiling, "median_ms");
  std::string title = "of the GEMM ceiling: " + text_of(*ceiling, "kernel") + " " +
                      (median ? format_ms(*median) + " ms" : std::string(kNotMeasured));
  cell.html = "<span title=\"" + html_escape(title) + "\">" + cell.html + "</span>";
  return cell;
}

// The variant with its idea as a tooltip, and its kind when the name does not already say it.
HtmlCell variant_cell(const nlohmann::json& row) {
  std::string variant = text_of(row, "variant"), kind = text_of(row, "kind");
  std::string title = text_of(row, "idea");
  const nlohmann::json* external = field(row, "external");
  if (external != nullptr && external->is_object()) {  // a candidate from outside: its source's hash and how it was built
    const std::string command = text_of(*external, "compile_command");
    title += "\nsha256 " + text_of(*external, "source_sha256") + "\n" + (command.empty() ? "loaded as given" : command);
  }
  std::string html = "<span title=\"" + html_escape(title) + "\">" + html_escape(variant) + "</span>";
  if (!kind.empty() && kind != variant) html += " <span class=\"kind\">" + html_escape(kind) + "</span>";
  return {html, "", variant};
}

// The failure of each failed distribution, as text in the row (a tooltip alone hides why a row
// failed from a reader who does not hover, and from print and search).
std::string visible_failures(const nlohmann::json& row) {
  std::string html;
  const nlohmann::json* distributions = field_path(row, "validation.per_distribution");
  if (distributions == nullptr || !distributions->is_array()) return html;
  for (const auto& d : *distributions) {
    const std::string failure = text_of(d, "failure");
    if (failure.empty() || text_of(d, "verdict") == "passed") continue;
    const bool counts = boolean_of(d, "counts").value_or(true) || boolean_of(d, "hard_failed").value_or(false);
    html += std::string("<div class=\"failure") + (counts ? "" : " muted") + "\">" +
            html_escape(text_of(d, "distribution") + ": " + failure) + "</div>";
  }
  return html;
}

std::string verdict_title(const std::string& verdict) {
  if (verdict == "inconclusive") return "nothing failed, but every counted check's bound was too loose to tell right from wrong";
  if (verdict == "flagged") return "the outputs passed, but the timing cannot be trusted (see the flags)";
  return "";
}

// "fragile: wide 53x": a stress distribution (not claimed) whose bound the case missed while its
// counted distributions passed, with the error as a multiple of its bound.
std::string render_fragile_chips(const nlohmann::json& row) {
  std::string html;
  const nlohmann::json* fragile = field_path(row, "validation.fragile");
  if (fragile == nullptr || !fragile->is_array()) return html;
  for (const auto& f : *fragile) {
    const std::string share = format_ratio(number_of(f, "share_of_bound").value_or(0)) + "\u00d7";
    html += html_chip("fragile: " + text_of(f, "distribution") + " " + share, "fragile",
                      text_of(f, "tensor") + " misses its bound " + share + " on a stress distribution the variant "
                      "does not claim (--strict fails it)") + " ";
  }
  return html;
}

HtmlCell verdict_cell(const nlohmann::json& row) {
  std::string verdict = verdict_of(row);
  std::string classes = failure_class_attribute(row);
  if (verdict == "skipped")
    return {html_chip("skipped", "skipped") + " <span class=\"reason\">" + html_escape(text_of(row, "skip_reason")) + "</span>",
            classes, verdict};
  if (verdict == "not_run")
    return {html_chip("not run", "skipped") + " <span class=\"reason\">" + html_escape(text_of(row, "not_run_reason")) + "</span>",
            classes, verdict};
  if (verdict == "error")
    return {html_chip("error", "fail") + " <span class=\"reason\">" + html_escape(text_of(row, "error")) + "</span>", classes, verdict};
  std::string chip_class = verdict == "passed"         ? "pass"
                           : verdict == "incorrect"    ? "fail"
                           : verdict == "inconclusive" ? "inconclusive"
                           : verdict == "flagged"      ? "flagged"
                                                       : "unclaimed";
  std::string html = html_chip(verdict, chip_class, verdict_title(verdict)) + " " + render_fragile_chips(row) +
                     render_distribution_chips(row);
  long long unwritten = unwritten_elements(row);
  if (unwritten > 0) html += " " + html_chip(std::to_string(unwritten) + " unwritten", "fail fail-unwritten");
  return {html + visible_failures(row), classes, verdict};
}

std::string validation_details(const nlohmann::json& row) {
  std::string text;
  const nlohmann::json* distributions = field_path(row, "validation.per_distribution");
  if (distributions == nullptr || !distributions->is_array()) return "";
  for (const auto& d : *distributions) {
    text += text_of(d, "distribution") + " (" + text_of(d, "formula") + "): " + text_of(d, "verdict") + " over " +
            text_of(d, "trials") + " trial(s), normwise " + text_of(d, "normwise_error") + ", elementwise " +
            text_of(d, "elementwise_error") + ", unwritten " + text_of(d, "unwritten");
    std::string failure = text_of(d, "failure");
    if (!failure.empty()) text += ", " + failure;
    std::string stress = text_of(d, "stress_reason");
    if (!stress.empty()) text += " [not claimed: " + stress + "]";
    text += "\n";
  }
  return "<div>validation</div><pre>" + html_escape(text) + "</pre>";
}

// The stress distributions the variant passed (validation.robust_to), e.g. "offset, tiny_var":
// the column that says whether a sum/sum-of-squares variant survives cancellation.
HtmlCell robust_to_cell(const nlohmann::json& row) {
  const nlohmann::json* validation = field(row, "validation");
  if (validation == nullptr || !validation->is_object()) return {kNotMeasured, "", ""};
  std::string names;
  for (const std::string& name : strings_of(*validation, "robust_to")) names += (names.empty() ? "" : ", ") + name;
  return {names.empty() ? kNotMeasured : html_escape(names), "", names};
}

// What the board did over the samples (timing.board, minor 13), or "" where not recorded.
std::string board_line(const nlohmann::json& row) {
  const auto window = number_of(row, "timing.board.window_ms");
  if (!window) return "";
  const auto power = number_of(row, "timing.board.avg_power_w");
  const auto capped = [&](const char* field) {
    const auto ms = number_of(row, std::string("timing.board.") + field);
    return ms ? format_fixed(*ms, 1) + " ms" : std::string("not reported");
  };
  return "<div>board over the samples (" + format_fixed(*window, 0) + " ms): " +
         (power ? format_fixed(*power, 0) + " W mean" : std::string("power not reported")) +
         ", clocks held by the power cap " + capped("power_capped_ms") + ", by heat " + capped("thermal_capped_ms") +
         "</div>";
}

// The row's kernels (report_kernels.hpp), then the commands that reproduce and profile it.
HtmlCell commands_cell(const nlohmann::json& row) {
  std::string html = kernels_details(row) + "<details><summary>reproduce / profile</summary>";
  html += "<div>reproduce</div><pre class=\"reproduce\">" + html_escape(text_of(row, "reproduce")) + "</pre>";
  html += "<div>profile (ncu)</div><pre class=\"profile\">" + html_escape(text_of(row, "profile")) + "</pre>";
  html += "<div>NVTX range <code>" + html_escape(text_of(row, "nvtx_range")) + "</code>, bytes: " +
          html_escape(text_of(row, "bytes_formula")) + "</div>" + board_line(row);
  return {html + validation_details(row) + "</details>", "", ""};
}

// The problem's label may break after each '_' (m4096_<wbr>n4096_<wbr>k4096): long GEMM shapes
// would otherwise widen the table past the page.
HtmlCell problem_cell(const nlohmann::json& row) {
  std::string label = html_escape(problem_label(row));
  for (std::size_t at = label.find('_'); at != std::string::npos; at = label.find('_', at + 6)) label.insert(at + 1, "<wbr>");
  return {"<span title=\"" + html_escape(text_of(row, "problem")) + "\">" + label + "</span>", "", text_of(row, "problem")};
}

// Memory-bound rows: GB/s and % of the copy ceiling; compute-bound rows (a GEMM ceiling for
// the problem): TFLOP/s and % of the GEMM ceiling, in columns of their own.
HtmlRow result_row(const ComputeCeilings& ceilings, const nlohmann::json& row, bool compute_bound) {
  HtmlRow html_row;
  html_row.css_class = failure_class_attribute(row);
  html_row.data = {{"op", text_of(row, "op")}, {"variant", text_of(row, "variant")},
                   {"verdict", verdict_of(row)}, {"problem", text_of(row, "problem")}};
  html_row.cells = {
      problem_cell(row),
      variant_cell(row),
      median_cell(row),
      spread_cell(row),
      compute_bound ? number_cell(number_of(row, "tflops"), 1) : number_cell(number_of(row, "gbps"), 0),
      compute_bound ? percent_of_gemm_ceiling_cell(ceilings, row) : percent_of_ceiling_cell(row),
      ratio_cell(number_of(row, "speedup_vs_naive")),
      ratio_cell(number_of(row, "speedup_vs_baseline")),
      verdict_cell(row),
      robust_to_cell(row),
      {render_flag_chips(row), "", ""},
      commands_cell(row),
  };
  return html_row;
}

std::vector<HtmlColumn> result_columns(bool compute_bound) {
  HtmlColumn rate = compute_bound ? HtmlColumn{"tflops", "TFLOP/s", true} : HtmlColumn{"gbps", "GB/s", true};
  HtmlColumn share = compute_bound ? HtmlColumn{"pct_gemm", "% of GEMM ceiling", true} : HtmlColumn{"pct", "% of ceiling", true};
  // Headers wrap at their blanks (html_page's style): short words keep each column narrow.
  return {{"problem", "problem"}, {"variant", "variant"}, {"median", "median ms", true}, {"spread", "p10\u2013p90 ms", true},
          rate, share, {"vs_naive", "vs naive", true},
          {"vs_baseline", "vs library", true}, {"verdict", "verdict per distribution"}, {"robust_to", "robust to"},
          {"flags", "flags"},
          {"commands", "kernels, commands"}};
}

std::string throttle_reasons(const nlohmann::json& row) {
  const nlohmann::json* timing = field(row, "timing");
  std::string reasons;
  if (timing == nullptr) return reasons;
  for (const std::string& reason : strings_of(*timing, "throttle_reasons")) reasons += (reasons.empty() ? "" : ", ") + reason;
  return reasons;
}

}  // namespace

std::string render_distribution_chips(const nlohmann::json& row) {
  std::string html;
  const nlohmann::json* distributions = field_path(row, "validation.per_distribution");
  if (distributions == nullptr || !distributions->is_array()) return html;
  for (const auto& d : *distributions) {
    const bool passed = text_of(d, "verdict") == "passed";
    const bool claimed = boolean_of(d, "counts").value_or(true);
    // A hard failure (unwritten, NaN/Inf out of place, a changed input) counts on any distribution.
    const bool counts = claimed || boolean_of(d, "hard_failed").value_or(false);
    const nlohmann::json* inconclusive = field(d, "inconclusive");
    const nlohmann::json* tensors = field(d, "tensors");
    const bool all_inconclusive = passed && inconclusive != nullptr && inconclusive->is_array() && !inconclusive->empty() &&
                                  tensors != nullptr && tensors->is_array() && inconclusive->size() >= tensors->size();
    std::string text = text_of(d, "distribution") + (all_inconclusive ? " ?" : passed ? " \u2713" : " \u2717") +
                       (claimed ? "" : "(not claimed)");
    std::string title = !text_of(d, "failure").empty() ? text_of(d, "failure") : text_of(d, "stress_reason");
    if (inconclusive != nullptr && inconclusive->is_array() && !inconclusive->empty()) {
      std::string names;
      for (const auto& t : *inconclusive) names += (names.empty() ? "" : ", ") + (t.is_string() ? t.get<std::string>() : "");
      title += (title.empty() ? "" : "\n") + std::string("inconclusive (bound too loose to discriminate): ") + names;
    }
    const std::string cls = !counts ? "unclaimed" : !passed ? "fail" : all_inconclusive ? "inconclusive" : "pass";
    html += html_chip(text, cls, title);
  }
  return html;
}

std::string render_flag_chips(const nlohmann::json& row) {
  std::string html;
  for (const std::string& flag : strings_of(row, "flags")) {
    if (flag == "faster_than_light")
      html += html_chip("faster than light", "flag-ftl",
                        number_of(row, "tflops") ? "beats the measured copy ceiling or the GPU's theoretical compute peak by more than noise"
                                                 : "beats the measured copy ceiling by more than noise");
    else if (flag == "escapes_stream") html += html_chip("escapes stream", "flag-escapes", "event time is far below the synchronised wall clock");
    else if (flag == "throttled") html += html_chip("throttled", "flag-throttled", throttle_reasons(row));
    else if (flag == "fits_in_l2") html += html_chip("fits in L2", "flag-l2", "bytes below the L2 size");
    else html += html_chip(flag, "flag-other");
  }
  return html;
}

std::string render_results_table(const ComputeCeilings& ceilings, const ResultRows& rows) {
  const bool compute_bound = ceilings.any_compute_bound(rows);
  std::vector<HtmlRow> html_rows;
  for (const nlohmann::json* row : rows) html_rows.push_back(result_row(ceilings, *row, compute_bound));
  return render_html_table(result_columns(compute_bound), html_rows, "results");
}

}  // namespace nb
