#pragma once
// The JSON form of a case's kernel launches (harness/launches/kernel_launches.hpp): the report
// writes it in each row as `launches`, and eval's worker hands it to its parent in the outcome,
// which reads it back (docs/report-schema.md, "launches").
#include <nlohmann/json.hpp>

#include "harness/launches/kernel_launches.hpp"

namespace nb {

// {"available": false, "reason": ...} when there are none; else the kernels in launch order.
nlohmann::ordered_json case_launches_json(const CaseLaunches& launches);

// Throws nlohmann::json::exception when a field is missing or of the wrong type.
CaseLaunches case_launches_from(const nlohmann::json& j);

}  // namespace nb
