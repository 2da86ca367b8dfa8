#pragma once
// The two ceilings every result is shown against: the device-to-device copy bandwidth measured
// at start-up (read + write bytes over the median copy time) and the theoretical peak.
#include <cuda_runtime.h>

#include <cstddef>

#include "harness/device/gpu_info.hpp"

namespace nb {

struct BandwidthCeiling {
  double copy_gbps = 0;
  double copy_cv = 0;
  std::size_t copy_bytes = 0;  // bytes copied per sample (each read once and written once)
  int copy_samples = 0;
  double peak_gbps = 0;
};

// Copies `bytes` device to device (warm-up first), `samples` times, timed with events.
BandwidthCeiling measure_bandwidth_ceiling(const GpuInfo& gpu, cudaStream_t stream,
                                           std::size_t bytes = std::size_t(1) << 30, int samples = 30);

}  // namespace nb
