#pragma once
// The HTML output of `normbench compare`: the same rows as the terminal table, on the shared
// self-contained page (sortable, filterable by op and change).
#include "harness/report/compare/compare_runs.hpp"

#include <optional>
#include <string>

namespace nb {

std::string render_compare_html(const Comparison& comparison, const std::optional<RegressionCheck>& check);

}  // namespace nb
