#include "harness/report/json_fields.hpp"

#include <algorithm>

namespace nb {

const nlohmann::json* field(const nlohmann::json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

const nlohmann::json* field_path(const nlohmann::json& object, const std::string& dotted) {
  const nlohmann::json* node = &object;
  std::size_t start = 0;
  while (node != nullptr && start <= dotted.size()) {
    std::size_t dot = dotted.find('.', start);
    std::string key = dotted.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    node = field(*node, key.c_str());
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return node;
}

std::string text_of(const nlohmann::json& object, const std::string& dotted) {
  const nlohmann::json* value = field_path(object, dotted);
  if (value == nullptr || value->is_null()) return "";
  if (value->is_string()) return value->get<std::string>();
  return value->dump();
}

std::optional<double> number_of(const nlohmann::json& object, const std::string& dotted) {
  const nlohmann::json* value = field_path(object, dotted);
  if (value == nullptr || !value->is_number()) return std::nullopt;
  return value->get<double>();
}

std::optional<bool> boolean_of(const nlohmann::json& object, const std::string& dotted) {
  const nlohmann::json* value = field_path(object, dotted);
  if (value == nullptr || !value->is_boolean()) return std::nullopt;
  return value->get<bool>();
}

std::vector<std::string> strings_of(const nlohmann::json& object, const char* key) {
  std::vector<std::string> out;
  const nlohmann::json* list = field(object, key);
  if (list == nullptr || !list->is_array()) return out;
  for (const auto& item : *list)
    if (item.is_string()) out.push_back(item.get<std::string>());
  return out;
}

bool contains_string(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

}  // namespace nb
