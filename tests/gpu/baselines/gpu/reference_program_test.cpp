// Every op's float64 reference program on the GPU, over every quick problem and distribution,
// against the Eigen reference and the host's draws and conditions; Eigen's audit (with a planted
// error it must catch) under `normal` and `special` (AuditChecks): the device twin of
// tests/unit/baselines/gpu/reference_program_test.cpp, which audits under every distribution.
#include <gtest/gtest.h>

#include "gpu_harness.hpp"
#include "harness/cuda_check.hpp"
#include "harness/cuda_stream.hpp"
#include "harness/device_buffer.hpp"
#include "harness/validation/device_executor.hpp"
#include "quick_problems.hpp"
#include "reference_program_check.hpp"

namespace nb::test {
namespace {

class DeviceProgramMemory final : public ProgramMemory {
 public:
  explicit DeviceProgramMemory(cudaStream_t stream) : stream_(stream) {}
  void* allocate(std::size_t bytes) override {
    blocks_.emplace_back(bytes ? bytes : 1);
    return blocks_.back().get();
  }
  void to_host(void* host, const void* data, std::size_t bytes) override {
    NB_CUDA_CHECK(cudaMemcpyAsync(host, data, bytes, cudaMemcpyDeviceToHost, stream_));
    NB_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }
  void from_host(void* data, const void* host, std::size_t bytes) override {
    NB_CUDA_CHECK(cudaMemcpyAsync(data, host, bytes, cudaMemcpyHostToDevice, stream_));
    NB_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

 private:
  cudaStream_t stream_;
  std::vector<DeviceBuffer> blocks_;
};

class DeviceReferenceProgram : public testing::TestWithParam<OpProblem> {};

TEST_P(DeviceReferenceProgram, MatchesEigenOnEveryDistribution) {
  const auto& [op, problem] = GetParam();
  const CudaStream stream;
  DeviceExecutor device(stream.get());
  Executor ex(device);
  check_every_distribution(*op, problem, ex, [&] { return std::make_unique<DeviceProgramMemory>(stream.get()); },
                           "on the device", AuditChecks::normal_and_special);
}

INSTANTIATE_TEST_SUITE_P(QuickSuite, DeviceReferenceProgram, testing::ValuesIn(quick_problems(registry(), true)),
                         problem_test_name);

}  // namespace
}  // namespace nb::test
