#include "harness/run/rows_in_flight_setting.hpp"

#include <atomic>
#include <cstdlib>

#include "harness/errors.hpp"

namespace nb {

std::optional<int> parse_rows_in_flight(const std::optional<std::string>& text) {
  if (!text || text->empty()) return std::nullopt;
  if (*text == "2") return 2;
  if (*text == "3") return 3;
  throw UsageError(std::string(kRowsInFlightVariable) + "='" + *text +
                   "': expected 2 or 3 (blocks of 512 lanes an SM for the row ops' rows of 16384 bf16/fp16 values)");
}

std::optional<int> rows_in_flight_from_environment() {
  const char* env = std::getenv(kRowsInFlightVariable);
  return parse_rows_in_flight(env ? std::optional<std::string>(env) : std::nullopt);
}

namespace {
constexpr int kUnread = -1, kDeviceChooses = 0;
std::atomic<int> process_setting{kUnread};
}  // namespace

std::optional<int> rows_in_flight() {
  int s = process_setting.load();
  if (s == kUnread) {
    s = rows_in_flight_from_environment().value_or(kDeviceChooses);
    process_setting.store(s);
  }
  return s == kDeviceChooses ? std::nullopt : std::optional<int>(s);
}

void set_rows_in_flight(std::optional<int> setting) { process_setting.store(setting.value_or(kDeviceChooses)); }

}  // namespace nb
