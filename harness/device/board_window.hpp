#pragma once
// What the board did while a case's samples ran, from NVML's counters read before and after them
// (NvmlMonitor::counters): its mean power, and how long the power or the thermal policy held the
// clocks down. The SM clock read before and after the samples misses a cap that lifts when the
// GPU idles again; these counters grow only while it holds.
#include <optional>

namespace nb {

// Counters that only grow (NvmlMonitor::counters): the board's energy since the driver loaded, and
// the time its clocks were held down by the power or the thermal policy (NVML's violation
// counters). Each is empty where NVML or the board does not report it.
struct BoardCounters {
  std::optional<unsigned long long> energy_mj, power_capped_ns, thermal_capped_ns;
};

struct BoardWindow {
  double window_ms = 0;                // host wall time of the samples (the L2 flushes between them included)
  std::optional<double> avg_power_w;   // energy in the window over its time (the counter's own
                                       // update period blurs windows of a few ms)
  std::optional<double> power_capped_ms, thermal_capped_ms;
};

// The readings' differences over a window of window_ms; a counter missing on either side, or one
// that went backwards (a driver reload between the readings), gives no figure.
inline BoardWindow board_window(const BoardCounters& before, const BoardCounters& after, double window_ms) {
  BoardWindow w;
  w.window_ms = window_ms;
  const auto grown = [](const std::optional<unsigned long long>& a,
                        const std::optional<unsigned long long>& b) -> std::optional<double> {
    if (!a || !b || *b < *a) return std::nullopt;
    return static_cast<double>(*b - *a);
  };
  if (const auto mj = grown(before.energy_mj, after.energy_mj); mj && window_ms > 0) w.avg_power_w = *mj / window_ms;
  if (const auto ns = grown(before.power_capped_ns, after.power_capped_ns)) w.power_capped_ms = *ns * 1e-6;
  if (const auto ns = grown(before.thermal_capped_ns, after.thermal_capped_ns)) w.thermal_capped_ms = *ns * 1e-6;
  return w;
}

}  // namespace nb
