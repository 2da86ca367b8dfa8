#pragma once
// The JSON form of a problem's ReferenceSummary (where its float64 reference was computed and what
// Eigen's audit found), one form for the report's rows and the candidate worker's outcome alike.
#include <nlohmann/json.hpp>

#include "harness/validation/reference_summary.hpp"

namespace nb {

nlohmann::ordered_json reference_summary_json(const ReferenceSummary& s);
// Throws nlohmann::json::exception when a field is missing or of the wrong type.
ReferenceSummary reference_summary_from(const nlohmann::json& j);

}  // namespace nb
