// ProblemBuffers zeroes new buffers on the default stream while validation and timing copy on
// non-blocking streams, which do not wait for it: allocate() must finish the zeroing before it
// returns, or an upload that overtakes it is wiped (every variant then sees zero inputs). A
// misaligned placement puts each tensor one element past a 256-byte boundary, and its values
// go up and come back as they were.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

#include "gpu_harness.hpp"
#include "harness/cuda_check.hpp"
#include "harness/cuda_stream.hpp"
#include "harness/narrow_float.hpp"
#include "harness/run/problem_buffers.hpp"

namespace nb::test {
namespace {

// Keeps one thread busy for `cycles` SM clock cycles: work queued behind it on its stream waits.
__global__ void spin_for(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

TEST(ProblemBuffersOrder, AFirstUploadOnAnotherStreamIsNotWipedByTheZeroing) {
  const OpSpec& op = registry().op("rmsnorm_rows");
  const Problem p = op.make_problem({{"m", 256.0}, {"n", 4096.0}}, DType::f32);
  int clock_khz = 0;
  NB_CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  spin_for<<<1, 1>>>(static_cast<long long>(clock_khz) * 100);  // about 100 ms on the default stream
  NB_CHECK_LAUNCH();
  const ProblemBuffers b = ProblemBuffers::allocate(op, p, {});  // its zeroing queues behind the spin
  // The contract itself: allocate() returns with the default stream drained (spin and zeroing
  // done). Without it the spin is still running here; the upload below shows the consequence.
  EXPECT_EQ(cudaStreamQuery(nullptr), cudaSuccess) << "allocate() returned before its zeroing finished";

  HostTensors inputs = allocate_host_inputs(b.decls);
  draw_stored_inputs(op, p, b.decls, Distribution::uniform01, 1000, inputs);
  const CudaStream stream;
  b.upload(inputs, {TensorRole::input}, stream.get());
  NB_CUDA_CHECK(cudaDeviceSynchronize());
  for (std::size_t i = 0; i < b.decls.size(); ++i) {
    if (b.decls[i].role != TensorRole::input) continue;
    std::vector<float> on_device(inputs.data[i].size());
    NB_CUDA_CHECK(cudaMemcpy(on_device.data(), b.tensors.buffers[i].get(), on_device.size() * sizeof(float),
                             cudaMemcpyDeviceToHost));
    EXPECT_EQ(std::memcmp(on_device.data(), inputs.data[i].data(), on_device.size() * sizeof(float)), 0)
        << b.decls[i].name << " on the device is not what was uploaded";
  }
}

TEST(ProblemBuffersPlacement, MisalignedTensorsStartOneElementPastABoundaryAndKeepTheirValues) {
  const OpSpec& op = registry().op("layernorm_rows");  // bf16 x, w, b, y beside fp32 mean and rstd
  const Problem p = op.make_problem({{"m", 3.0}, {"n", 1000.0}}, DType::bf16);
  const ProblemBuffers b = ProblemBuffers::allocate(op, p, {}, TensorPlacement::misaligned);
  ASSERT_EQ(b.tensors.buffers.size(), b.decls.size());
  for (std::size_t i = 0; i < b.decls.size(); ++i) {
    const auto address = reinterpret_cast<std::uintptr_t>(b.tensors.buffers[i].get());
    EXPECT_EQ(address % 256, dtype_size(b.decls[i].dtype)) << b.decls[i].name;
  }
  HostTensors inputs = allocate_host_inputs(b.decls);
  draw_stored_inputs(op, p, b.decls, Distribution::normal, 7, inputs);
  const CudaStream stream;
  b.upload(inputs, {TensorRole::input}, stream.get());
  for (std::size_t i = 0; i < b.decls.size(); ++i) {
    if (b.decls[i].role != TensorRole::input || !is_narrow(b.decls[i].dtype)) continue;
    std::vector<std::uint16_t> bits(inputs.data[i].size());
    NB_CUDA_CHECK(cudaMemcpy(bits.data(), b.tensors.buffers[i].get(), bits.size() * 2, cudaMemcpyDeviceToHost));
    std::vector<float> back(bits.size());
    decode_narrow(bits.data(), back.data(), static_cast<std::int64_t>(bits.size()), b.decls[i].dtype);
    EXPECT_EQ(std::memcmp(back.data(), inputs.data[i].data(), back.size() * sizeof(float)), 0) << b.decls[i].name;
  }
}

}  // namespace
}  // namespace nb::test
