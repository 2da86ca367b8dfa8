#include "harness/device/nvml_monitor.hpp"

#include <cuda_runtime.h>
#include <dlfcn.h>

#include <type_traits>

namespace nb {
namespace {

// The few NVML entry points used, with their C signatures (nvml.h), resolved by name.
using nvmlReturn = int;
using nvmlDevice = void*;
constexpr int kNvmlClockSm = 1;
constexpr nvmlReturn kNvmlSuccess = 0;
constexpr int kNvmlPerfPolicyPower = 0, kNvmlPerfPolicyThermal = 1;  // nvmlPerfPolicyType_t

// nvmlViolationTime_t: a CPU timestamp (us), and the time the policy held the clocks down (ns).
struct ViolationTime {
  unsigned long long reference_us, violation_ns;
};

struct ReasonBit {
  unsigned long long bit;
  const char* name;
};
constexpr ReasonBit kReasons[] = {
    {0x1ull, "gpu_idle"},          {0x2ull, "applications_clocks"}, {0x4ull, "sw_power_cap"},
    {0x8ull, "hw_slowdown"},       {0x10ull, "sync_boost"},         {0x20ull, "sw_thermal_slowdown"},
    {0x40ull, "hw_thermal_slowdown"}, {0x80ull, "hw_power_brake_slowdown"}, {0x100ull, "display_clocks"},
};

}  // namespace

struct NvmlMonitor::Api {
  nvmlReturn (*init)() = nullptr;
  nvmlReturn (*shutdown)() = nullptr;
  nvmlReturn (*by_pci_bus_id)(const char*, nvmlDevice*) = nullptr;
  nvmlReturn (*clock_info)(nvmlDevice, int, unsigned*) = nullptr;
  nvmlReturn (*driver_version)(char*, unsigned) = nullptr;
  nvmlReturn (*reasons)(nvmlDevice, unsigned long long*) = nullptr;
  nvmlReturn (*energy)(nvmlDevice, unsigned long long*) = nullptr;
  nvmlReturn (*violation)(nvmlDevice, int, ViolationTime*) = nullptr;
};

NvmlMonitor::NvmlMonitor(int cuda_device) {
  library_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library_) return;
  api_ = new Api;
  auto load = [&](auto& fn, const char* name) {
    fn = reinterpret_cast<std::decay_t<decltype(fn)>>(dlsym(library_, name));
  };
  load(api_->init, "nvmlInit_v2");
  load(api_->shutdown, "nvmlShutdown");
  load(api_->by_pci_bus_id, "nvmlDeviceGetHandleByPciBusId_v2");
  load(api_->clock_info, "nvmlDeviceGetClockInfo");
  load(api_->driver_version, "nvmlSystemGetDriverVersion");
  load(api_->reasons, "nvmlDeviceGetCurrentClocksEventReasons");
  if (!api_->reasons) load(api_->reasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
  load(api_->energy, "nvmlDeviceGetTotalEnergyConsumption");
  load(api_->violation, "nvmlDeviceGetViolationStatus");
  if (!api_->init || !api_->by_pci_bus_id || api_->init() != kNvmlSuccess) return;
  char bus_id[64] = {0};
  if (cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, cuda_device) != cudaSuccess) return;
  nvmlDevice handle = nullptr;
  if (api_->by_pci_bus_id(bus_id, &handle) == kNvmlSuccess) device_ = handle;
}

NvmlMonitor::~NvmlMonitor() {
  if (api_ && api_->shutdown && device_) api_->shutdown();
  delete api_;
  if (library_) dlclose(library_);
}

std::optional<int> NvmlMonitor::sm_clock_mhz() const {
  unsigned mhz = 0;
  if (!device_ || !api_->clock_info || api_->clock_info(device_, kNvmlClockSm, &mhz) != kNvmlSuccess)
    return std::nullopt;
  return static_cast<int>(mhz);
}

std::optional<std::string> NvmlMonitor::driver_version() const {
  char text[96] = {0};
  if (!device_ || !api_->driver_version || api_->driver_version(text, sizeof text) != kNvmlSuccess)
    return std::nullopt;
  return std::string(text);
}

std::vector<std::string> NvmlMonitor::throttle_reasons() const {
  std::vector<std::string> names;
  unsigned long long mask = 0;
  if (!device_ || !api_->reasons || api_->reasons(device_, &mask) != kNvmlSuccess) return names;
  for (const auto& r : kReasons)
    if (mask & r.bit) names.emplace_back(r.name);
  return names;
}

BoardCounters NvmlMonitor::counters() const {
  BoardCounters c;
  if (!device_) return c;
  unsigned long long mj = 0;
  if (api_->energy && api_->energy(device_, &mj) == kNvmlSuccess) c.energy_mj = mj;
  ViolationTime v{};
  if (api_->violation && api_->violation(device_, kNvmlPerfPolicyPower, &v) == kNvmlSuccess)
    c.power_capped_ns = v.violation_ns;
  if (api_->violation && api_->violation(device_, kNvmlPerfPolicyThermal, &v) == kNvmlSuccess)
    c.thermal_capped_ns = v.violation_ns;
  return c;
}

bool NvmlMonitor::is_slowdown(const std::string& reason) {
  return reason == "hw_slowdown" || reason == "sw_thermal_slowdown" || reason == "hw_thermal_slowdown" ||
         reason == "hw_power_brake_slowdown";
}

}  // namespace nb
