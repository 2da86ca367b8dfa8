#include "harness/run/memory_footprint.hpp"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

namespace nb {

MemoryFootprint estimate_footprint(const FootprintInputs& in) {
  double device = 0, inputs = 0, results = 0;  // device bytes; elements of inputs and inout; of outputs and inout
  for (const TensorDecl& d : in.decls) {
    const double n = static_cast<double>(d.elements);
    device += n * static_cast<double>(dtype_size(d.dtype));
    if (d.role != TensorRole::output) inputs += n;
    if (d.role != TensorRole::input) results += n;
  }
  const double sets = in.fresh_buffers_per_trial ? 2.0 : 1.0;
  MemoryFootprint f;
  f.device_bytes = sets * (device + static_cast<double>(in.workspace_bytes)) +
                   static_cast<double>(in.flush_bytes) + kDeviceHeadroomBytes;
  if (in.device_reference) {
    f.device_bytes += (inputs + results) * sizeof(double);
    f.host_bytes = kAuditHostBytes;
    return f;
  }
  // Host: float inputs, and the float64 reference and float result of every output and inout tensor.
  f.host_bytes = inputs * sizeof(float) + results * (sizeof(double) + sizeof(float));
  return f;
}

std::string format_gib(double bytes) {
  char text[48];
  std::snprintf(text, sizeof text, "%.1f GiB", bytes / (1024.0 * 1024.0 * 1024.0));
  return text;
}

OutputCheckPlan plan_output_check(double snapshot_bytes, double free_device_bytes) {
  if (snapshot_bytes + kDeviceHeadroomBytes <= free_device_bytes) return {};
  return {false, "a copy of the outputs needs " + format_gib(snapshot_bytes) + " of device memory, " +
                     format_gib(free_device_bytes) + " free: compared by digest"};
}

std::optional<std::string> why_it_does_not_fit(const MemoryFootprint& need, double free_device_bytes,
                                               double available_host_bytes) {
  if (need.device_bytes > free_device_bytes)
    return "needs " + format_gib(need.device_bytes) + " of device memory, " + format_gib(free_device_bytes) + " free";
  if (need.host_bytes > available_host_bytes)
    return "needs " + format_gib(need.host_bytes) + " of host memory, " + format_gib(available_host_bytes) +
           " available";
  return std::nullopt;
}

std::optional<double> parse_mem_available(const std::string& meminfo) {
  std::istringstream lines(meminfo);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("MemAvailable:", 0) != 0) continue;
    std::istringstream fields(line.substr(13));
    double kib = -1;
    std::string unit;
    if (!(fields >> kib >> unit) || kib < 0 || unit != "kB") return std::nullopt;
    return kib * 1024.0;
  }
  return std::nullopt;
}

double host_memory_available() {
  std::ifstream in("/proc/meminfo");
  std::stringstream text;
  text << in.rdbuf();
  if (auto bytes = parse_mem_available(text.str())) return *bytes;
  const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<double>(pages) * static_cast<double>(page) : 1e18;
}

}  // namespace nb
