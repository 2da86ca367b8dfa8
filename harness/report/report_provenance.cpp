#include "harness/report/report_provenance.hpp"

#include "harness/report/html_escape.hpp"
#include "harness/report/json_fields.hpp"
#include "harness/report/report_compute.hpp"
#include "harness/report/report_format.hpp"
#include "harness/report/svg_chart.hpp"

#include <utility>
#include <vector>

namespace nb {
namespace {

using Fact = std::pair<std::string, std::string>;

std::string or_dash(const std::string& text) { return text.empty() ? kNotMeasured : text; }

std::string mhz(const nlohmann::json& provenance, const char* path) {
  return format_or_dash(number_of(provenance, path), 0, " MHz");
}

std::string bytes_fact(const nlohmann::json& provenance, const char* path) {
  auto bytes = number_of(provenance, path);
  return bytes ? format_bytes(*bytes) : kNotMeasured;
}

std::string commit_fact(const nlohmann::json& provenance) {
  std::string commit = or_dash(text_of(provenance, "git_commit"));
  const nlohmann::json* dirty = field(provenance, "git_dirty");
  if (dirty != nullptr && dirty->is_boolean() && dirty->get<bool>()) commit += " (uncommitted changes)";
  return commit;
}

std::vector<Fact> provenance_facts(const nlohmann::json& p) {
  return {
      {"GPU", or_dash(text_of(p, "gpu.name"))},
      {"compute capability", or_dash(text_of(p, "gpu.compute_capability"))},
      {"SMs", format_or_dash(number_of(p, "gpu.sm_count"), 0)},
      {"L2", bytes_fact(p, "gpu.l2_bytes")},
      {"memory", bytes_fact(p, "gpu.memory_bytes")},
      {"memory bus", format_or_dash(number_of(p, "gpu.memory_bus_bits"), 0, " bits")},
      {"SM clock max", mhz(p, "gpu.sm_clock_max_mhz")},
      {"SM clock at start", mhz(p, "gpu.sm_clock_at_start_mhz")},
      {"memory clock", mhz(p, "gpu.memory_clock_mhz")},
      {"driver", or_dash(text_of(p, "driver_version"))},
      {"CUDA driver API", or_dash(text_of(p, "cuda_driver_api"))},
      {"CUDA runtime", or_dash(text_of(p, "cuda_runtime"))},
      {"cuBLAS", or_dash(text_of(p, "cublas_version"))},
      {"cuDNN", or_dash(text_of(p, "cudnn_version")) + " (built against " + or_dash(text_of(p, "cudnn_header_version")) + ")"},
      {"commit", commit_fact(p)},
      {"normbench", or_dash(text_of(p, "normbench_version"))},
      {"host", or_dash(text_of(p, "hostname"))},
      {"GPU UUID", or_dash(text_of(p, "gpu.uuid"))},
      {"started", or_dash(text_of(p, "started_at"))},
      {"finished", or_dash(text_of(p, "finished_at"))},
  };
}

std::string facts_html(const std::vector<Fact>& facts) {
  std::string html = "<dl class=\"facts\">";
  for (const auto& [name, value] : facts) html += "<dt>" + html_escape(name) + "</dt><dd>" + html_escape(value) + "</dd>";
  return html + "</dl>\n";
}

}  // namespace

std::string gpu_name_of(const nlohmann::json& report) {
  std::string name = text_of(report, "provenance.gpu.name");
  return name.empty() ? "unknown GPU" : name;
}

std::string render_provenance_html(const nlohmann::json& report) {
  static const nlohmann::json empty = nlohmann::json::object();
  const nlohmann::json* provenance = field(report, "provenance");
  const nlohmann::json& p = provenance != nullptr ? *provenance : empty;
  std::string html = "<header>\n<h1>normbench report: " + html_escape(gpu_name_of(report)) + "</h1>\n";
  html += "<div class=\"muted\">" + html_escape(or_dash(text_of(p, "started_at"))) + "</div>\n";
  html += facts_html(provenance_facts(p));
  html += "<div>command: <code class=\"command\">" + html_escape(or_dash(text_of(p, "command_line"))) + "</code></div>\n";
  return html + "</header>\n";
}

static std::optional<double> times(const std::optional<double>& value, double factor) {
  return value ? std::optional<double>(*value * factor) : std::nullopt;
}

namespace {

std::string td(const std::string& escaped, const std::string& css_class = "", const std::string& title = "") {
  return "<td" + (css_class.empty() ? "" : " class=\"" + css_class + "\"") +
         (title.empty() ? "" : " title=\"" + html_escape(title) + "\"") + ">" + escaped + "</td>";
}

std::string gemm_ceiling_row(const nlohmann::json& report, const nlohmann::json& ceiling) {
  const std::string dtype = text_of(ceiling, "dtype");
  auto tflops = number_of(ceiling, "tflops"), peak = compute_peak_of(report, dtype);
  auto pct = number_of(ceiling, "pct_of_compute_peak");
  if (!pct && tflops && peak) pct = 100.0 * *tflops / *peak;
  auto median = number_of(ceiling, "median_ms"), p10 = number_of(ceiling, "p10_ms"), p90 = number_of(ceiling, "p90_ms");
  std::string spread = p10 && p90 ? format_ms(*p10) + "\u2013" + format_ms(*p90) : kNotMeasured;
  std::string pct_text = format_or_dash(pct, 1, "%") + (peak ? " of " + format_fixed(*peak, 1) : "");
  const bool beyond_peak = pct && *pct > 100.0;
  return "<tr" + std::string(beyond_peak ? " class=\"flag-ftl\"" : "") + ">" +
         td(html_escape(text_of(ceiling, "problem"))) +
         td(html_escape(text_of(ceiling, "kernel")), "", text_of(ceiling, "idea")) +
         td(html_escape(median ? format_ms(*median) : kNotMeasured), "num") + td(html_escape(spread), "num") +
         td(html_escape(format_or_dash(tflops, 1)), "num") +
         td(html_escape(pct_text), "num", beyond_peak ? "above the theoretical peak: check the peak table or the timing" : "") +
         "</tr>\n";
}

std::string compute_peaks_text(const nlohmann::json& report) {
  const nlohmann::json* peaks = field_path(report, "ceilings.compute_peak_tflops");
  std::string text;
  if (peaks == nullptr || !peaks->is_object()) return text;
  for (const auto& [dtype, value] : peaks->items())
    text += (text.empty() ? "" : ", ") + dtype + " " + (value.is_number() ? format_fixed(value.get<double>(), 1) + " TFLOP/s" : kNotMeasured);
  return text;
}

// The compute-bound twin of the copy ceiling: per problem, the library GEMM alone at the
// problem's precision, and how near it comes to the GPU's theoretical peak. "" when the run
// timed none.
std::string gemm_ceilings_html(const nlohmann::json& report) {
  const nlohmann::json* ceilings = field(report, "compute_ceilings");
  if (ceilings == nullptr || !ceilings->is_array() || ceilings->empty()) return "";
  std::string html = "<h3>GEMM ceilings</h3>\n<p>Per compute-bound problem, the library GEMM alone at the problem's "
                     "precision, timed like a case; every \"% of GEMM ceiling\" below is this median over the "
                     "variant's. Theoretical compute peak (dense FLOPs per clock per SM \u00d7 SMs \u00d7 max SM clock): " +
                     html_escape(or_dash(compute_peaks_text(report))) + ".</p>\n";
  html += "<table class=\"gemm-ceilings\"><thead><tr><th>problem</th><th>kernel</th><th>median ms</th>"
          "<th>p10\u2013p90 ms</th><th>TFLOP/s</th><th>% of compute peak (TFLOP/s)</th></tr></thead>\n<tbody>\n";
  for (const auto& ceiling : *ceilings) html += gemm_ceiling_row(report, ceiling);
  return html + "</tbody></table>\n";
}

}  // namespace

std::string render_ceilings_html(const nlohmann::json& report) {
  auto copy = number_of(report, "ceilings.copy_gbps");
  auto peak = number_of(report, "ceilings.peak_gbps");
  auto fraction = number_of(report, "ceilings.copy_fraction_of_peak");
  if (!fraction && copy && peak && *peak > 0) fraction = *copy / *peak;
  const std::string gemm = gemm_ceilings_html(report);
  std::string html = "<section id=\"ceilings\"><h2>" + std::string(gemm.empty() ? "Bandwidth ceilings" : "Bandwidth and GEMM ceilings") +
                     "</h2>\n<p>Measured device-to-device copy: <b>" +
                     format_or_dash(copy, 0, " GB/s") + "</b> (CV " +
                     format_or_dash(times(number_of(report, "ceilings.copy_cv"), 100), 1, "%") + ", " +
                     format_or_dash(number_of(report, "ceilings.copy_samples"), 0) + " samples of " +
                     format_or_dash(times(number_of(report, "ceilings.copy_bytes"), 1.0 / (1 << 20)), 0, " MiB") +
                     "); theoretical peak: <b>" + format_or_dash(peak, 0, " GB/s") + "</b>; the copy reaches <b>" +
                     format_or_dash(times(fraction, 100), 1, "%") +
                     "</b> of peak. Every \"% of ceiling\" below is against the measured copy" +
                     (gemm.empty() ? "." : "; compute-bound ops show \"% of GEMM ceiling\" instead (below).") + "</p>\n";
  BarChart chart{"measured copy vs theoretical peak", " GB/s",
                 {{"measured copy", copy, "", ""}, {"theoretical peak", peak, "", ""}}, std::nullopt, ""};
  return html + render_bar_chart_svg(chart) + gemm + "</section>\n";
}

}  // namespace nb
