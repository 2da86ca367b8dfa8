#pragma once
// What a result row says about itself: its verdict and the CSS classes that name its failure
// (fail-incorrect, fail-inconclusive, fail-flagged, fail-unwritten, fragile, flag-ftl, flag-escapes,
// flag-throttled, skipped, error).
// Report, compare and fleet pages all use these, so a class means the same thing everywhere.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace nb {

// The row's disposition ("passed", "incorrect", "inconclusive", "flagged" or "not_verified") for a
// row that ran; "skipped", "error" or "not_run" otherwise.
std::string verdict_of(const nlohmann::json& row);

// Worst `unwritten` count over the row's distributions (0 when not validated).
long long unwritten_elements(const nlohmann::json& row);

// A row whose counted distributions passed but which missed its bound on a stress distribution.
bool is_fragile(const nlohmann::json& row);

// True when the timing cannot be trusted: any flag but the informational ones (case_flags.hpp).
bool timing_is_suspect(const nlohmann::json& row);

// True for a row that ran, passed, has a median, and whose timing is not suspect.
bool is_trusted_pass(const nlohmann::json& row);

// The failure classes of a row, most serious first; empty for a clean pass.
std::vector<std::string> failure_classes(const nlohmann::json& row);

// The failure classes joined with spaces, ready for a class attribute.
std::string failure_class_attribute(const nlohmann::json& row);

}  // namespace nb
