#pragma once
// Clock and throttle readings through NVML, loaded at run time (dlopen): the driver ships
// libnvidia-ml, so a build host or CI machine without a driver still runs everything else.
#include <optional>
#include <string>
#include <vector>

#include "harness/device/board_window.hpp"

namespace nb {

class NvmlMonitor {
 public:
  // Opens the NVML device matching the CUDA device's PCI bus id; empty readings when absent.
  explicit NvmlMonitor(int cuda_device);
  ~NvmlMonitor();
  NvmlMonitor(const NvmlMonitor&) = delete;
  NvmlMonitor& operator=(const NvmlMonitor&) = delete;

  bool available() const { return device_ != nullptr; }
  std::optional<int> sm_clock_mhz() const;
  std::optional<std::string> driver_version() const;
  // Names of the clock event (throttle) reasons active now, e.g. "sw_power_cap".
  std::vector<std::string> throttle_reasons() const;
  // True when a reason that slows the clocks for heat or power protection is active.
  static bool is_slowdown(const std::string& reason);

  // The board's counters now, read around a timed window (board_window.hpp).
  BoardCounters counters() const;

 private:
  struct Api;
  void* library_ = nullptr;
  Api* api_ = nullptr;
  void* device_ = nullptr;
};

}  // namespace nb
