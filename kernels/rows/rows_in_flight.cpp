#include "kernels/rows/rows_in_flight.hpp"

#include <cuda_runtime.h>

#include "harness/cuda_check.hpp"
#include "harness/run/rows_in_flight_setting.hpp"

namespace nb::rows {
namespace {

// 2 transfers a memory clock x the bus width, over the SMs: GB/s an SM.
double device_dram_gbps_per_sm() {
  static const double rate = [] {
    int device = 0, clock_khz = 0, bus_bits = 0, sms = 0;
    NB_CUDA_CHECK(cudaGetDevice(&device));
    NB_CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, device));
    NB_CUDA_CHECK(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device));
    NB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    return 2.0 * clock_khz * 1e3 * (bus_bits / 8.0) / 1e9 / sms;
  }();
  return rate;
}

}  // namespace

int blocks_of_512_an_sm(double dram_gbps_per_sm, std::optional<int> setting) {
  if (setting) return *setting;
  return dram_gbps_per_sm > kThreeBlocksDramGbpsPerSm ? 3 : 2;
}

int blocks_of_512_an_sm() { return blocks_of_512_an_sm(device_dram_gbps_per_sm(), rows_in_flight()); }

}  // namespace nb::rows
