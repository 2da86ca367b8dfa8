// Every op's float64 reference program on the GPU, over every quick problem and distribution,
// against the Eigen reference, the host's draws and conditions, and Eigen's audit (with a planted
// error it must catch): the device twin of tests/unit/reference_program_test.cpp.
#include <gtest/gtest.h>

#include <cstdio>

#include "gpu_harness.hpp"
#include "harness/cuda_check.hpp"
#include "harness/cuda_stream.hpp"
#include "harness/device_buffer.hpp"
#include "harness/validation/device_executor.hpp"
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

struct ProgramProblem {
  const OpSpec* op;
  Problem problem;
};

void PrintTo(const ProgramProblem& p, std::ostream* out) { *out << p.problem.id(); }

std::vector<ProgramProblem> quick_problems_with_programs() {
  std::vector<ProgramProblem> all;
  for (const auto& op : registry().ops())
    if (op->has_reference_program())
      for (const auto& p : op->problems_in("quick")) all.push_back({op.get(), p});
  return all;
}

class DeviceReferenceProgram : public testing::TestWithParam<ProgramProblem> {};

TEST_P(DeviceReferenceProgram, MatchesEigenOnEveryDistribution) {
  const auto& [op, problem] = GetParam();
  const CudaStream stream;
  DeviceExecutor device(stream.get());
  Executor ex(device);
  ProgramAgreement worst;
  for (std::size_t d = 0; d < all_distributions().size(); ++d) {
    DeviceProgramMemory memory(stream.get());
    const ProgramAgreement a = check_reference_program(*op, problem, all_distributions()[d], 5000 + d, ex, memory);
    worst.worst_normwise = std::max(worst.worst_normwise, a.worst_normwise);
    worst.worst_elementwise = std::max(worst.worst_elementwise, a.worst_elementwise);
    worst.worst_condition_gap = std::max(worst.worst_condition_gap, a.worst_condition_gap);
  }
  std::printf("%s on the device: against Eigen, worst normwise %.2e, elementwise %.2e, condition gap %.2e\n",
              problem.id().c_str(), worst.worst_normwise, worst.worst_elementwise, worst.worst_condition_gap);
}

INSTANTIATE_TEST_SUITE_P(QuickSuite, DeviceReferenceProgram, testing::ValuesIn(quick_problems_with_programs()),
                         [](const testing::TestParamInfo<ProgramProblem>& info) {
                           std::string name = info.param.problem.id();
                           for (char& c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

}  // namespace
}  // namespace nb::test
