#pragma once
// What a result row says about itself: its verdict and the CSS classes that name its failure
// (fail-incorrect, fail-unwritten, flag-ftl, flag-escapes, flag-throttled, skipped, error).
// Report, compare and fleet pages all use these, so a class means the same thing everywhere.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace nb {

// "passed", "incorrect" or "not_verified" for a row that ran; "skipped" or "error" otherwise.
std::string verdict_of(const nlohmann::json& row);

// Worst `unwritten` count over the row's distributions (0 when not validated).
long long unwritten_elements(const nlohmann::json& row);

// True when the timing cannot be trusted: flagged faster_than_light or escapes_stream.
bool timing_is_suspect(const nlohmann::json& row);

// True for a row that ran, passed, has a median, and whose timing is not suspect.
bool is_trusted_pass(const nlohmann::json& row);

// The failure classes of a row, most serious first; empty for a clean pass.
std::vector<std::string> failure_classes(const nlohmann::json& row);

// The failure classes joined with spaces, ready for a class attribute.
std::string failure_class_attribute(const nlohmann::json& row);

}  // namespace nb
