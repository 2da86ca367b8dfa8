#pragma once
// What `normbench compare` prints: an aligned terminal table, or the --json document
// (structure in docs/compare.md). The HTML page is in compare_html.hpp.
#include "harness/report/compare/compare_runs.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace nb {

// The cells of one compared row, in the order of compare_columns(): change, verdict, new/base,
// base ms, new ms, noise, op, problem, variant. Shared by the text and HTML outputs.
std::vector<std::string> compare_columns();
std::vector<std::string> compared_row_cells(const ComparedRow& row);

// "2 verdict changes (1 regression); SLOWER 1, FASTER 1, SAME 19, ..."
std::string comparison_counts_line(const Comparison& comparison);

// The noise rule in words, e.g. for a footer.
std::string noise_rule_text(const NoiseRule& rule);

std::string render_compare_text(const Comparison& comparison, const std::optional<RegressionCheck>& check);

nlohmann::json compare_to_json(const Comparison& comparison, const std::optional<RegressionCheck>& check);

}  // namespace nb
