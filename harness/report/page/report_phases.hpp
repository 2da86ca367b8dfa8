#pragma once
// The report page's "where the time went": the run's seconds by phase, and per problem its shared
// validation phases beside its rows' own (report.phases, schema minor 4), and the library plans
// built and loaded (minor 5). Empty for older reports.
#include <nlohmann/json.hpp>

#include <string>

namespace nb {

std::string render_phases_html(const nlohmann::json& report);

}  // namespace nb
