#include "harness/report/result_classes.hpp"

#include "harness/report/case_flags.hpp"
#include "harness/report/json_fields.hpp"

#include <algorithm>

namespace nb {

std::string verdict_of(const nlohmann::json& row) {
  std::string status = text_of(row, "status");
  if (status == "skipped" || status == "error" || status == "not_run") return status;
  std::string disposition = text_of(row, "disposition");
  return disposition.empty() ? "not_verified" : disposition;
}

long long unwritten_elements(const nlohmann::json& row) {
  const nlohmann::json* distributions = field_path(row, "validation.per_distribution");
  long long worst = 0;
  if (distributions == nullptr || !distributions->is_array()) return 0;
  for (const auto& distribution : *distributions)
    worst = std::max(worst, static_cast<long long>(number_of(distribution, "unwritten").value_or(0)));
  return worst;
}

bool is_fragile(const nlohmann::json& row) {
  const nlohmann::json* fragile = field_path(row, "validation.fragile");
  return fragile != nullptr && fragile->is_array() && !fragile->empty();
}

bool timing_is_suspect(const nlohmann::json& row) {
  const std::vector<std::string> flags = strings_of(row, "flags");
  return std::any_of(flags.begin(), flags.end(), [](const std::string& f) { return !flag_is_informational(f); });
}

bool is_trusted_pass(const nlohmann::json& row) {
  return verdict_of(row) == "passed" && number_of(row, "timing.median_ms").has_value() &&
         !timing_is_suspect(row);
}

std::vector<std::string> failure_classes(const nlohmann::json& row) {
  std::vector<std::string> classes;
  std::string verdict = verdict_of(row);
  if (verdict == "error") classes.push_back("error");
  if (verdict == "skipped" || verdict == "not_run") classes.push_back("skipped");
  if (verdict == "incorrect") classes.push_back("fail-incorrect");
  if (verdict == "inconclusive") classes.push_back("fail-inconclusive");
  if (verdict == "flagged") classes.push_back("fail-flagged");
  if (is_fragile(row)) classes.push_back("fragile");
  if (unwritten_elements(row) > 0) classes.push_back("fail-unwritten");
  std::vector<std::string> flags = strings_of(row, "flags");
  if (contains_string(flags, "faster_than_light")) classes.push_back("flag-ftl");
  if (contains_string(flags, "escapes_stream")) classes.push_back("flag-escapes");
  if (contains_string(flags, "throttled")) classes.push_back("flag-throttled");
  return classes;
}

std::string failure_class_attribute(const nlohmann::json& row) {
  std::string joined;
  for (const std::string& name : failure_classes(row)) joined += (joined.empty() ? "" : " ") + name;
  return joined;
}

}  // namespace nb
