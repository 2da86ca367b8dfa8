#include "harness/report/report_compute.hpp"

#include "harness/report/json_fields.hpp"

namespace nb {

const nlohmann::json* compute_ceiling_of(const nlohmann::json& report, const std::string& problem_id) {
  const nlohmann::json* ceilings = field(report, "compute_ceilings");
  if (ceilings == nullptr || !ceilings->is_array()) return nullptr;
  for (const auto& ceiling : *ceilings)
    if (text_of(ceiling, "problem") == problem_id) return &ceiling;
  return nullptr;
}

bool is_compute_bound_row(const nlohmann::json& report, const nlohmann::json& row) {
  return compute_ceiling_of(report, text_of(row, "problem")) != nullptr || number_of(row, "tflops").has_value() ||
         number_of(row, "pct_of_compute_ceiling").has_value();
}

bool any_compute_bound(const nlohmann::json& report, const ResultRows& rows) {
  for (const nlohmann::json* row : rows)
    if (is_compute_bound_row(report, *row)) return true;
  return false;
}

std::optional<double> compute_peak_of(const nlohmann::json& report, const std::string& dtype) {
  const nlohmann::json* peaks = field_path(report, "ceilings.compute_peak_tflops");
  if (peaks == nullptr || dtype.empty()) return std::nullopt;
  auto peak = number_of(*peaks, dtype);
  return peak && *peak > 0 ? peak : std::nullopt;
}

std::string problem_label(const nlohmann::json& row) {
  const std::string dtype = text_of(row, "dtype");
  return text_of(row, "problem_name") + (dtype.empty() || dtype == "fp32" ? "" : " " + dtype);
}

}  // namespace nb
