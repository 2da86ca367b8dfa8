#include <iomanip>
#include <ostream>

#include "harness/cli/commands.hpp"
#include "harness/cuda_stream.hpp"
#include "harness/device/bandwidth_ceiling.hpp"
#include "harness/errors.hpp"

namespace nb {

int ceilings_command(int device, std::ostream& out) {
  GpuInfo gpu = query_gpu(device);
  const CudaStream stream;
  BandwidthCeiling c = measure_bandwidth_ceiling(gpu, stream.get());
  out << std::fixed << std::setprecision(1);
  out << gpu.name << " (" << gpu.sm_count << " SMs, L2 " << gpu.l2_bytes / (1 << 20) << " MiB, memory clock "
      << gpu.memory_clock_mhz << " MHz x " << gpu.memory_bus_bits << " bits)\n";
  out << "measured device-to-device copy: " << c.copy_gbps << " GB/s (read+write, " << c.copy_bytes / (1 << 20)
      << " MiB x " << c.copy_samples << " samples, cv " << std::setprecision(3) << c.copy_cv << ")\n";
  out << std::setprecision(1) << "theoretical peak: " << c.peak_gbps << " GB/s; measured is "
      << 100.0 * c.copy_gbps / c.peak_gbps << "% of it\n";
  return kExitOk;
}

}  // namespace nb
