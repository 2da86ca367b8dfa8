#include "harness/report/report_rows.hpp"

#include "harness/errors.hpp"
#include "harness/report/json_fields.hpp"

#include <unordered_map>
#include <unordered_set>

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
  std::unordered_set<std::string> seen;
  for (const nlohmann::json* row : rows) {
    std::string value = text_of(*row, key);
    if (seen.insert(value).second) values.push_back(std::move(value));
  }
  return values;
}

std::vector<RowGroup> group_rows(const ResultRows& rows, const char* key) {
  std::vector<RowGroup> groups;
  std::unordered_map<std::string, std::size_t> index;
  for (const nlohmann::json* row : rows) {
    std::string value = text_of(*row, key);
    auto [at, added] = index.emplace(value, groups.size());
    if (added) groups.push_back({std::move(value), {}});
    groups[at->second].rows.push_back(row);
  }
  return groups;
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
