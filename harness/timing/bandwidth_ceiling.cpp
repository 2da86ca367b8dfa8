#include "harness/timing/bandwidth_ceiling.hpp"

#include "harness/cuda_check.hpp"
#include "harness/device_buffer.hpp"
#include "harness/timing/event_timer.hpp"
#include "harness/timing/statistics.hpp"

namespace nb {

BandwidthCeiling measure_bandwidth_ceiling(const GpuInfo& gpu, cudaStream_t stream, std::size_t bytes, int samples) {
  DeviceBuffer src(bytes), dst(bytes);
  NB_CUDA_CHECK(cudaMemsetAsync(src.get(), 1, bytes, stream));
  auto copy = [&] {
    NB_CUDA_CHECK(cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, stream));
  };
  const SampleStats st = summarize(EventTimer(stream).sample_ms(copy, 3, samples));
  BandwidthCeiling c;
  c.copy_bytes = bytes;
  c.copy_samples = samples;
  c.copy_gbps = 2.0 * static_cast<double>(bytes) / (st.median * 1e-3) / 1e9;
  c.copy_cv = st.cv;
  c.peak_gbps = gpu.theoretical_peak_gbps();
  return c;
}

}  // namespace nb
