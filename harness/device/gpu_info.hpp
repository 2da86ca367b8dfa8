#pragma once
// What the harness needs to know about the GPU: identity, SMs, L2, clocks and memory bus.
#include <cstddef>
#include <string>

namespace nb {

struct GpuInfo {
  int device = 0;
  std::string name, slug, uuid, compute_capability;
  int sm_count = 0;
  std::size_t l2_bytes = 0, memory_bytes = 0;
  int sm_clock_max_mhz = 0, memory_clock_mhz = 0, memory_bus_bits = 0;

  // 2 transfers per memory clock x bus width: the datasheet bandwidth, in GB/s.
  double theoretical_peak_gbps() const;
};

// Throws DeviceError with a clear message when there is no usable CUDA device.
GpuInfo query_gpu(int device);
// "NVIDIA H100 80GB HBM3" -> "nvidia-h100-80gb-hbm3"
std::string gpu_slug(const std::string& name);
// "" when a CUDA device is usable, else why not, as a user should read it: "no NVIDIA driver found
// (libcuda.so.1 not loadable): ..." when there is no driver at all, the runtime's text otherwise.
std::string why_no_cuda_device();
// True when a CUDA device is usable (no driver, no device: false, never throws).
bool cuda_device_available();

}  // namespace nb
