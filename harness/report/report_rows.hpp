#pragma once
// Grouping a report's results[] rows: by op, by problem, in the order the run wrote them.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace nb {

using ResultRows = std::vector<const nlohmann::json*>;

// The report's results[] (throws nb::UsageError when it is missing or not an array).
ResultRows all_results(const nlohmann::json& report);

// Distinct values of the string field `key` over the rows, in first-seen order.
std::vector<std::string> distinct_values(const ResultRows& rows, const char* key);

// The rows that share one value of a field, in their order.
struct RowGroup {
  std::string value;
  ResultRows rows;
};

// The rows grouped by the string field `key`: one group per distinct value, in first-seen order.
// Linear in the rows (a report of 20k rows renders in well under a second): use it rather than
// rows_where once per distinct value, which is quadratic.
std::vector<RowGroup> group_rows(const ResultRows& rows, const char* key);

// The rows whose string field `key` equals `value`.
ResultRows rows_where(const ResultRows& rows, const char* key, const std::string& value);

// The rows whose problem belongs to `suite`.
ResultRows rows_in_suite(const ResultRows& rows, const std::string& suite);

}  // namespace nb
