#include "kernels/rows/rows_in_flight.hpp"

#include <cuda_runtime.h>

#include <cstdlib>

#include "harness/cuda_check.hpp"
#include "harness/errors.hpp"

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

int blocks_of_512_an_sm(double dram_gbps_per_sm, const std::optional<std::string>& setting) {
  if (setting) {
    if (*setting == "2") return 2;
    if (*setting == "3") return 3;
    throw UsageError("NORMBENCH_ROWS_IN_FLIGHT='" + *setting +
                     "': expected 2 or 3 (blocks of 512 lanes an SM for LayerNorm's rows of 16384 bf16/fp16 values)");
  }
  return dram_gbps_per_sm > kThreeBlocksDramGbpsPerSm ? 3 : 2;
}

int blocks_of_512_an_sm() {
  const char* env = std::getenv("NORMBENCH_ROWS_IN_FLIGHT");  // read each launch: a test may change it
  if (env && !*env) env = nullptr;                             // set but empty: as unset
  return blocks_of_512_an_sm(device_dram_gbps_per_sm(), env ? std::optional<std::string>(env) : std::nullopt);
}

}  // namespace nb::rows
