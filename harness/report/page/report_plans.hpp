#pragma once
// The report page's library plans (report.phases.problems[].plans, schema minor 5): every cuDNN
// plan the run built, loaded from the plan cache or had refused, slowest first, with the engine,
// whether it compiles its kernel at run time, and what the cache did; the summary line counts the
// hits and misses. Empty when the run made no plan (or for an older report).
#include <nlohmann/json.hpp>

#include <string>

namespace nb {

std::string render_plans_html(const nlohmann::json& report);

}  // namespace nb
