#pragma once
// The one JSON form of a case's validation and timing results: the report writes it in each row,
// and eval's worker hands its outcome to the parent in it, which reads it back. Fields derived
// for readers (a distribution's formula and trial count, a bound's share, the fragile and
// inconclusive lists, the timing statistics) are written, never read: they are recomputed.
#include <optional>

#include <nlohmann/json.hpp>

#include "harness/dtype.hpp"
#include "harness/run/case_outcome.hpp"

namespace nb {

// `storage` names each distribution's formula in the output's type; without it the formula is null.
nlohmann::ordered_json validation_result_json(const ValidationResult& v, std::optional<DType> storage = std::nullopt);
nlohmann::ordered_json timing_result_json(const TimingResult& t);
nlohmann::ordered_json hidden_shape_json(const HiddenShapeVerdict& v);

// Each throws nlohmann::json::exception when a field is missing or of the wrong type.
ValidationResult validation_result_from(const nlohmann::json& j);
TimingResult timing_result_from(const nlohmann::json& j);
HiddenShapeVerdict hidden_shape_from(const nlohmann::json& j);

}  // namespace nb
