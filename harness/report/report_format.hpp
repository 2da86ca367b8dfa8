#pragma once
// How numbers read on a report page: fixed decimals, byte sizes, and a dash for "not measured".
#include <optional>
#include <string>

namespace nb {

inline const char* const kNotMeasured = "\u2014";  // an em dash, never a made-up number

// Fixed decimals; a magnitude of 1e15 or more in exponent form with 4 significant digits
// ("1.000e+308"), never dozens of digits.
std::string format_fixed(double value, int decimals);

// Milliseconds with about four significant digits (0.2134, 12.07, 1234).
std::string format_ms(double ms);

// Ratios (speedups) to three significant digits, never in exponent form: 1059, 25.4, 1.54,
// 0.00180 (a naive kernel 550x slower than the library must not read "0.00").
std::string format_ratio(double ratio);

// 52428800 -> "50 MiB"; binary units, as cache and memory sizes are quoted.
std::string format_bytes(double bytes);

// Decimal units for an axis: 1e6 -> "1 MB".
std::string format_bytes_decimal(double bytes);

// format_fixed with a suffix, or the em dash when the value is missing.
std::string format_or_dash(const std::optional<double>& value, int decimals, const std::string& suffix = "");

}  // namespace nb
