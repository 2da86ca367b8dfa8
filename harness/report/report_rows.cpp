#include "harness/report/report_rows.hpp"

#include "harness/errors.hpp"
#include "harness/report/json_fields.hpp"

#include <algorithm>

namespace nb {

ResultRows all_results(const nlohmann::json& report) {
  const nlohmann::json* results = field(report, "results");
  if (results == nullptr || !results->is_array())
    throw UsageError("report has no results[] array (see docs/report-schema.md)");
  ResultRows rows;
  for (const auto& row : *results) rows.push_back(&row);
  return rows;
}

std::vector<std::string> distinct_values(const ResultRows& rows, const char* key) {
  std::vector<std::string> values;
  for (const nlohmann::json* row : rows) {
    std::string value = text_of(*row, key);
    if (std::find(values.begin(), values.end(), value) == values.end()) values.push_back(value);
  }
  return values;
}

ResultRows rows_where(const ResultRows& rows, const char* key, const std::string& value) {
  ResultRows matching;
  for (const nlohmann::json* row : rows)
    if (text_of(*row, key) == value) matching.push_back(row);
  return matching;
}

ResultRows rows_in_suite(const ResultRows& rows, const std::string& suite) {
  ResultRows matching;
  for (const nlohmann::json* row : rows)
    if (contains_string(strings_of(*row, "suites"), suite)) matching.push_back(row);
  return matching;
}

}  // namespace nb
