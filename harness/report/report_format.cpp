#include "harness/report/report_format.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace nb {

std::string format_fixed(double value, int decimals) {
  char buffer[64];
  // Past 1e15 fixed notation prints digits that mean nothing (1e308 has 309 of them, cut at the
  // buffer's end): such a value, from a hostile or broken report, reads in exponent form.
  if (std::isfinite(value) && std::fabs(value) >= 1e15)
    std::snprintf(buffer, sizeof buffer, "%.3e", value);
  else
    std::snprintf(buffer, sizeof buffer, "%.*f", std::clamp(decimals, 0, 20), value);
  return buffer;
}

std::string format_ms(double ms) {
  double magnitude = std::fabs(ms);
  int decimals = magnitude >= 1000 ? 0 : magnitude >= 100 ? 1 : magnitude >= 10 ? 2 : magnitude >= 1 ? 3 : 4;
  return format_fixed(ms, decimals);
}

std::string format_ratio(double ratio) {
  const double magnitude = std::fabs(ratio);
  if (!(magnitude > 0) || !std::isfinite(magnitude)) return format_fixed(ratio, 2);
  const int decimals = magnitude >= 100 ? 0 : std::min(6, 2 - int(std::floor(std::log10(magnitude))));
  return format_fixed(ratio, decimals);
}

static std::string scaled(double bytes, double base, const char* const units[], int unit_count) {
  int unit = 0;
  while (std::fabs(bytes) >= base && unit + 1 < unit_count) {
    bytes /= base;
    ++unit;
  }
  bool whole = std::fabs(bytes - std::round(bytes)) < 0.05;
  return format_fixed(bytes, whole ? 0 : 1) + " " + units[unit];
}

std::string format_bytes(double bytes) {
  static const char* const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  return scaled(bytes, 1024.0, units, 5);
}

std::string format_bytes_decimal(double bytes) {
  static const char* const units[] = {"B", "kB", "MB", "GB", "TB"};
  return scaled(bytes, 1000.0, units, 5);
}

std::string format_or_dash(const std::optional<double>& value, int decimals, const std::string& suffix) {
  if (!value) return kNotMeasured;
  return format_fixed(*value, decimals) + suffix;
}

}  // namespace nb
