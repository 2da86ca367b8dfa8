#pragma once
// NORMBENCH_ROWS_IN_FLIGHT: a run's override of how many blocks of 512 lanes an SM the rows of 16384
// bf16/fp16 values of LayerNorm, RMSNorm and softmax take (kernels/rows/rows_in_flight.hpp): 2 or
// 3; unset or empty, the device's DRAM rate picks. Read where a run starts, so that a bad value is
// a usage error before any case, recorded in the report's settings (a run under it times other
// kernels) and handed to the kernels, which ask rows_in_flight() at each launch without reading the
// environment again.
#include <optional>
#include <string>

namespace nb {

inline constexpr const char* kRowsInFlightVariable = "NORMBENCH_ROWS_IN_FLIGHT";

// 2 or 3 from "2" or "3"; nullopt from nullopt or ""; anything else throws UsageError.
std::optional<int> parse_rows_in_flight(const std::optional<std::string>& text);

// The environment's setting, parsed (throws UsageError as parse_rows_in_flight does).
std::optional<int> rows_in_flight_from_environment();

// The process's setting: what set_rows_in_flight set last, else the environment's, read once.
std::optional<int> rows_in_flight();
void set_rows_in_flight(std::optional<int> setting);

}  // namespace nb
