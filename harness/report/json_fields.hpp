#pragma once
// Lenient reads of report fields: a report may leave a field null ("could not measure"), and a
// page must still render. Missing or null reads as empty / nullopt, never as a made-up number.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace nb {

// The member `key` of `object`, or nullptr when object is not an object or has no such member.
const nlohmann::json* field(const nlohmann::json& object, const char* key);

// A dotted path ("gpu.name") below `object`; nullptr when any step is missing.
const nlohmann::json* field_path(const nlohmann::json& object, const std::string& dotted);

// Strings as themselves, numbers and booleans as JSON text, missing or null as "".
std::string text_of(const nlohmann::json& object, const std::string& dotted);

// A number, or nullopt when missing, null or not a number.
std::optional<double> number_of(const nlohmann::json& object, const std::string& dotted);

// A boolean, or nullopt when missing, null or not a boolean.
std::optional<bool> boolean_of(const nlohmann::json& object, const std::string& dotted);

// A string array (e.g. flags, suites); missing or null gives an empty list.
std::vector<std::string> strings_of(const nlohmann::json& object, const char* key);

bool contains_string(const std::vector<std::string>& list, const std::string& value);

}  // namespace nb
