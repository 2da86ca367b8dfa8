#include "harness/report/report_compute.hpp"

#include "harness/report/json_fields.hpp"

namespace nb {

ComputeCeilings::ComputeCeilings(const nlohmann::json& report) {
  const nlohmann::json* ceilings = field(report, "compute_ceilings");
  if (ceilings == nullptr || !ceilings->is_array()) return;
  for (const auto& ceiling : *ceilings) by_problem_.emplace(text_of(ceiling, "problem"), &ceiling);  // the first stays
}

const nlohmann::json* ComputeCeilings::of(const std::string& problem_id) const {
  auto it = by_problem_.find(problem_id);
  return it == by_problem_.end() ? nullptr : it->second;
}

bool ComputeCeilings::is_compute_bound(const nlohmann::json& row) const {
  return of(text_of(row, "problem")) != nullptr || number_of(row, "tflops").has_value() ||
         number_of(row, "pct_of_compute_ceiling").has_value();
}

bool ComputeCeilings::any_compute_bound(const ResultRows& rows) const {
  for (const nlohmann::json* row : rows)
    if (is_compute_bound(*row)) return true;
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
