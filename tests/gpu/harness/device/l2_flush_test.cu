// The L2 flush before each timed sample must evict what the last launch left in L2: a read of a
// 16 MB buffer (well inside the L2 of an H100) right after a flush is slower than the same read
// right after reading it. Persisting lines are why the harness resets the persisting L2 state:
// they survive the flush until that reset.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "harness/cuda_check.hpp"
#include "harness/device/gpu_info.hpp"
#include "harness/device/l2_flush.hpp"
#include "harness/device/persisting_l2.hpp"
#include "harness/timing/event_timer.hpp"

namespace nb {
namespace {

constexpr std::size_t kBytes = 16u << 20;

__global__ void read_all(const float4* data, std::size_t n, float* sink) {
  float sum = 0;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    const float4 v = data[i];
    sum += v.x + v.y + v.z + v.w;
  }
  if (sum == -1.0f) *sink = sum;  // never true for the zeroed buffer: keeps the loads
}

class L2Flush : public testing::Test {
 protected:
  void SetUp() override {
    NB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    NB_CUDA_CHECK(cudaMemset(data_.get(), 0, kBytes));
    NB_CUDA_CHECK(cudaDeviceSynchronize());
    reset_persisting_l2(stream_);
  }
  void TearDown() override {
    reset_persisting_l2(stream_);
    cudaStreamDestroy(stream_);
  }
  void read() { read_all<<<1024, 256, 0, stream_>>>(data_.as<float4>(), kBytes / sizeof(float4), sink_.as<float>()); }
  // The median of 21 timed reads, each after `before` (untimed).
  double median_read_ms(const std::function<void()>& before) {
    EventTimer timer(stream_);
    std::vector<double> ms;
    for (int i = 0; i < 21; ++i) {
      before();
      ms.push_back(timer.time_ms([&] { read(); }));
    }
    std::nth_element(ms.begin(), ms.begin() + 10, ms.end());
    return ms[10];
  }

  cudaStream_t stream_ = nullptr;
  DeviceBuffer data_{kBytes}, sink_{sizeof(float)};
  L2Flusher flusher_{query_gpu(0).l2_bytes};
};

TEST_F(L2Flush, EvictsABufferThatFitsInL2) {
  const double hot = median_read_ms([&] { read(); });
  const double flushed = median_read_ms([&] { flusher_.flush(stream_); });
  EXPECT_GT(flushed, 1.25 * hot) << "hot " << hot << " ms, after a flush " << flushed << " ms";
}

TEST_F(L2Flush, PersistingLinesSurviveTheFlushUntilTheReset) {
  cudaDeviceProp prop{};
  NB_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  if (prop.persistingL2CacheMaxSize < int(kBytes) || prop.accessPolicyMaxWindowSize < int(kBytes))
    GTEST_SKIP() << "the persisting L2 of this GPU is smaller than the buffer";
  const double flushed = median_read_ms([&] { flusher_.flush(stream_); });
  NB_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, kBytes));
  cudaStreamAttrValue value{};
  value.accessPolicyWindow.base_ptr = data_.get();
  value.accessPolicyWindow.num_bytes = kBytes;
  value.accessPolicyWindow.hitRatio = 1.0f;
  value.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
  value.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
  NB_CUDA_CHECK(cudaStreamSetAttribute(stream_, cudaStreamAttributeAccessPolicyWindow, &value));
  read();
  const double persisting = median_read_ms([&] { flusher_.flush(stream_); });
  EXPECT_LT(persisting, 0.8 * flushed) << "persisting " << persisting << " ms, flushed " << flushed << " ms";
  EXPECT_NE(find_and_reset_persisting_l2(stream_), "");
  const double after_reset = median_read_ms([&] { flusher_.flush(stream_); });
  EXPECT_GT(after_reset, 0.8 * flushed) << "after the reset " << after_reset << " ms, flushed " << flushed << " ms";
}

}  // namespace
}  // namespace nb
