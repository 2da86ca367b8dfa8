#pragma once
// report.html: one self-contained page (inline CSS, inline script, inline SVG) from a
// report.json that follows docs/report-schema.md. Opens offline; nothing is fetched.
#include <nlohmann/json.hpp>

#include <string>

namespace nb {

// Throws nb::UsageError when the report has no results[] array. Every string taken from the
// report is HTML-escaped.
std::string render_report_html(const nlohmann::json& report);

}  // namespace nb
