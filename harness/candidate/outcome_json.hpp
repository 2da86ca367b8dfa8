#pragma once
// A case outcome as JSON and back: how a candidate's worker process hands its result (validation
// per distribution, timing samples, flags) to the parent, which merges it into its run record.
#include <nlohmann/json.hpp>

#include "harness/run/case_outcome.hpp"

namespace nb {

nlohmann::json outcome_to_json(const CaseOutcome& outcome);
// Throws UsageError when the document is not an outcome.
CaseOutcome outcome_from_json(const nlohmann::json& j);

nlohmann::json hidden_shape_to_json(const HiddenShapeVerdict& v);
HiddenShapeVerdict hidden_shape_from_json(const nlohmann::json& j);  // throws UsageError

}  // namespace nb
