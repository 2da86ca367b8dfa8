#pragma once
// What the board did while a case's samples ran, from NVML's counters read before and after them
// (NvmlMonitor::counters): its mean power, and how long the power or the thermal policy held the
// clocks down. The SM clock read before and after the samples misses a cap that lifts when the
// GPU idles again; these counters grow only while it holds.
#include <optional>

namespace nb {

struct BoardWindow {
  double window_ms = 0;                // host wall time of the samples (the L2 flushes between them included)
  std::optional<double> avg_power_w;   // energy in the window over its time (the counter's own
                                       // update period blurs windows of a few ms)
  std::optional<double> power_capped_ms, thermal_capped_ms;
};

// The readings' differences over a window of window_ms; a counter missing on either side, or one
// that went backwards (a driver reload between the readings), gives no figure.
template <class Counters>
BoardWindow board_window(const Counters& before, const Counters& after, double window_ms) {
  BoardWindow w;
  w.window_ms = window_ms;
  const auto grown = [](const auto& a, const auto& b) -> std::optional<double> {
    if (!a || !b || *b < *a) return std::nullopt;
    return static_cast<double>(*b - *a);
  };
  if (const auto mj = grown(before.energy_mj, after.energy_mj); mj && window_ms > 0) w.avg_power_w = *mj / window_ms;
  if (const auto ns = grown(before.power_capped_ns, after.power_capped_ns)) w.power_capped_ms = *ns * 1e-6;
  if (const auto ns = grown(before.thermal_capped_ns, after.thermal_capped_ns)) w.thermal_capped_ms = *ns * 1e-6;
  return w;
}

}  // namespace nb
