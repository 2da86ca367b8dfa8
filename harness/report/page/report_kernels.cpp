#include "harness/report/page/report_kernels.hpp"

#include "harness/report/html_escape.hpp"
#include "harness/report/html_table.hpp"
#include "harness/report/json_fields.hpp"
#include "harness/report/report_format.hpp"

namespace nb {
namespace {

// "1024×1×1" from [1024, 1, 1]; a dash where the field is not three numbers.
std::string dims_text(const nlohmann::json& kernel, const char* key) {
  const nlohmann::json* dims = field(kernel, key);
  if (dims == nullptr || !dims->is_array() || dims->size() != 3) return kNotMeasured;
  std::string text;
  for (const auto& d : *dims) text += (text.empty() ? "" : "\u00d7") + (d.is_number() ? d.dump() : std::string("?"));
  return text;
}

std::string bytes_text(const nlohmann::json& kernel, const char* key) {
  const auto bytes = number_of(kernel, key);
  return bytes ? format_bytes(*bytes) : kNotMeasured;
}

// The kernel's microseconds in the untimed run, over its merged launches (total; min-max when several).
std::string untimed_us_text(const nlohmann::json& kernel) {
  const auto total = number_of(kernel, "untimed_ns.total");
  if (!total) return kNotMeasured;
  std::string text = format_fixed(*total / 1e3, 1);
  const auto min = number_of(kernel, "untimed_ns.min"), max = number_of(kernel, "untimed_ns.max");
  if (number_of(kernel, "count").value_or(1) > 1 && min && max)
    text += " (" + format_fixed(*min / 1e3, 1) + "\u2013" + format_fixed(*max / 1e3, 1) + " each)";
  return text;
}

std::string kernel_row(const nlohmann::json& kernel) {
  std::string name = "<span title=\"" + html_escape(text_of(kernel, "demangled")) + "\">" +
                     html_escape(text_of(kernel, "name")) + "</span>";
  if (boolean_of(kernel, "on_case_stream") == false)
    name += " " + html_chip("other stream", "flag-escapes", "ran on a stream other than the one the case was given");
  std::string html = "<tr><td>" + name + "</td>";
  for (const std::string& cell :
       {text_of(kernel, "count"), dims_text(kernel, "grid"), dims_text(kernel, "block"), dims_text(kernel, "cluster"),
        text_of(kernel, "registers_per_thread"), bytes_text(kernel, "static_shared_bytes"),
        bytes_text(kernel, "dynamic_shared_bytes"), untimed_us_text(kernel)})
    html += "<td class=\"num\">" + html_escape(cell) + "</td>";
  return html + "</tr>";
}

constexpr const char* kKernelsHeader =
    "<tr><th>kernel</th><th>launches</th><th>grid</th><th>block</th><th>cluster</th><th>regs</th>"
    "<th>static smem</th><th>dynamic smem</th>"
    "<th title=\"CUPTI start to end in one untimed launch after the validation (no L2 flush): not the "
    "benchmark's time\">untimed &micro;s</th></tr>";

// "3 kernels: partials_rows, finalize, normalize_rows" (the first names, then an ellipsis).
std::string kernels_summary(const nlohmann::json& kernels, double launched) {
  constexpr std::size_t kNamesShown = 3;
  std::string names;
  for (std::size_t i = 0; i < kernels.size() && i < kNamesShown; ++i)
    names += (names.empty() ? "" : ", ") + text_of(kernels[i], "name");
  if (kernels.size() > kNamesShown) names += ", \u2026";
  return format_fixed(launched, 0) + (launched == 1 ? " kernel: " : " kernels: ") + names;
}

}  // namespace

std::string kernels_details(const nlohmann::json& row) {
  const nlohmann::json* launches = field(row, "launches");
  if (launches == nullptr || !launches->is_object()) return "";
  if (boolean_of(*launches, "available") != true)
    return "<div class=\"muted\" title=\"" + html_escape(text_of(*launches, "reason")) + "\">kernels not recorded</div>";
  const nlohmann::json* kernels = field(*launches, "kernels");
  if (kernels == nullptr || !kernels->is_array()) return "";
  const double launched = number_of(*launches, "kernel_launches").value_or(0);
  std::string html = "<details class=\"kernels\"><summary>" + html_escape(kernels_summary(*kernels, launched)) +
                     "</summary><table class=\"kernels\">" + kKernelsHeader;
  for (const auto& kernel : *kernels) html += kernel_row(kernel);
  html += "</table>";
  if (const auto dropped = number_of(*launches, "dropped_records"); dropped && *dropped > 0)
    html += "<div class=\"failure\">" + html_escape(format_fixed(*dropped, 0)) +
            " activity records dropped by CUPTI: kernels are missing</div>";
  return html + "</details>";
}

}  // namespace nb
