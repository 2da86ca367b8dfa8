// One thread reads %globaltimer (nanoseconds, the GPU's clock) and stores it.
#include "harness/device/device_clock.hpp"

#include "harness/cuda_check.hpp"

namespace nb {
namespace {

__global__ void stamp_kernel(unsigned long long* slot) {
  unsigned long long now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  *slot = now;
}

}  // namespace

DeviceClock::DeviceClock(int slots) : slots_(slots > 0 ? slots : 0), stamps_(sizeof(unsigned long long) * (slots > 0 ? slots : 1)) {}

void DeviceClock::stamp(int slot, cudaStream_t stream) {
  if (slot < 0 || slot >= slots_) return;
  stamp_kernel<<<1, 1, 0, stream>>>(stamps_.as<unsigned long long>() + slot);
  NB_CHECK_LAUNCH();
}

std::vector<std::uint64_t> DeviceClock::read(int count, cudaStream_t stream) const {
  const int n = count < slots_ ? (count > 0 ? count : 0) : slots_;
  std::vector<std::uint64_t> host(static_cast<std::size_t>(n));
  if (n > 0)
    NB_CUDA_CHECK(cudaMemcpyAsync(host.data(), stamps_.get(), host.size() * sizeof(std::uint64_t), cudaMemcpyDeviceToHost,
                                  stream));
  NB_CUDA_CHECK(cudaStreamSynchronize(stream));
  return host;
}

std::vector<double> stamp_intervals_ms(const std::vector<std::uint64_t>& stamps) {
  std::vector<double> ms;
  for (std::size_t k = 0; k + 1 < stamps.size(); k += 2)
    ms.push_back(stamps[k + 1] >= stamps[k] ? static_cast<double>(stamps[k + 1] - stamps[k]) * 1e-6 : 0.0);
  return ms;
}

}  // namespace nb
