#include "harness/cli/option_checks.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "harness/errors.hpp"

namespace nb {
namespace {

std::string shown(double v) {
  std::ostringstream text;
  text << v;
  return text.str();
}

}  // namespace

CLI::Validator real_in(double low, double high, bool low_open) {
  const std::string range = std::string(low_open ? "(" : "[") + shown(low) + ", " + shown(high) + "]";
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        const char* begin = text.c_str();
        char* end = nullptr;
        errno = 0;
        const double v = std::strtod(begin, &end);
        if (end == begin || *end != '\0') return "'" + text + "' is not a number";
        if (!std::isfinite(v) || errno == ERANGE) return "'" + text + "' is not a finite number";
        if (v < low || (low_open && v == low) || v > high) return "'" + text + "' is out of range " + range;
        return "";
      },
      "REAL in " + range);
}

CLI::Validator whole_in(std::int64_t low, std::int64_t high) {
  const std::string range = "[" + std::to_string(low) + ", " + std::to_string(high) + "]";
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        std::int64_t v = 0;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (error == std::errc::result_out_of_range) return "'" + text + "' is out of range " + range;
        if (error != std::errc() || end != text.data() + text.size())
          return "'" + text + "' is not a whole number";
        if (v < low || v > high) return "'" + text + "' is out of range " + range;
        return "";
      },
      "INT in " + range);
}

CLI::Validator unsigned_whole() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        std::uint64_t v = 0;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
          return "'" + text + "' is not a whole number >= 0";
        if (error != std::errc() || end != text.data() + text.size())
          return "'" + text + "' is out of range [0, 2^64-1]";
        return "";
      },
      "UINT");
}

CLI::Validator not_empty() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        return text.find_first_not_of(" \t") == std::string::npos ? "an empty value" : "";
      },
      "");
}

void refuse_conflicts(const CLI::App& command, std::initializer_list<OptionConflict> conflicts) {
  for (const OptionConflict& c : conflicts)
    if (command.count(c.first) > 0 && command.count(c.second) > 0)
      throw UsageError(std::string(c.first) + " and " + c.second + " cannot be given together: " + c.why);
}

}  // namespace nb
