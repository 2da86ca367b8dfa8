#include "harness/report/report_provenance.hpp"

#include "harness/report/html_escape.hpp"
#include "harness/report/json_fields.hpp"
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

std::string render_ceilings_html(const nlohmann::json& report) {
  auto copy = number_of(report, "ceilings.copy_gbps");
  auto peak = number_of(report, "ceilings.peak_gbps");
  auto fraction = number_of(report, "ceilings.copy_fraction_of_peak");
  if (!fraction && copy && peak && *peak > 0) fraction = *copy / *peak;
  std::string html = "<section id=\"ceilings\"><h2>Bandwidth ceilings</h2>\n<p>Measured device-to-device copy: <b>" +
                     format_or_dash(copy, 0, " GB/s") + "</b> (CV " +
                     format_or_dash(times(number_of(report, "ceilings.copy_cv"), 100), 1, "%") + ", " +
                     format_or_dash(number_of(report, "ceilings.copy_samples"), 0) + " samples of " +
                     format_or_dash(times(number_of(report, "ceilings.copy_bytes"), 1.0 / (1 << 20)), 0, " MiB") +
                     "); theoretical peak: <b>" + format_or_dash(peak, 0, " GB/s") + "</b>; the copy reaches <b>" +
                     format_or_dash(times(fraction, 100), 1, "%") +
                     "</b> of peak. Every \"% of ceiling\" below is against the measured copy.</p>\n";
  BarChart chart{"measured copy vs theoretical peak", " GB/s",
                 {{"measured copy", copy, "", ""}, {"theoretical peak", peak, "", ""}}, std::nullopt, ""};
  return html + render_bar_chart_svg(chart) + "</section>\n";
}

}  // namespace nb
