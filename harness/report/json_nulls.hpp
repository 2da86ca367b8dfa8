#pragma once
// How a report writes what was not measured or does not apply: null, never a 0 or an empty string
// a reader could take for a value.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace nb {

template <class T>
nlohmann::ordered_json optional_json(const std::optional<T>& v) {
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

inline nlohmann::ordered_json text_or_null(const std::string& s) {
  return s.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(s);
}

}  // namespace nb
