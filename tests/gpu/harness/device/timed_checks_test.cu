// The device pieces that keep a timing honest: the timed-output check (snapshot and digest), the
// GPU clock's stamps, the second poison payload, and the persisting-L2 check.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "harness/cuda_check.hpp"
#include "harness/device/device_checks.hpp"
#include "harness/device/device_clock.hpp"
#include "harness/device/persisting_l2.hpp"
#include "harness/device/timed_output_check.hpp"
#include "harness/timing/event_timer.hpp"
#include "harness/validation/compare.hpp"

namespace nb {
namespace {

__global__ void spin_ns(unsigned long long ns) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
}

void upload(DeviceBuffer& b, const std::vector<float>& v) {
  NB_CUDA_CHECK(cudaMemcpy(b.get(), v.data(), v.size() * sizeof(float), cudaMemcpyHostToDevice));
}

// Four samples: written back as warmed up (agrees), skipped (disturbed), rounded differently by
// 1e-6 (agrees), 1% off (differs).
TimedOutputReport four_samples(bool snapshot) {
  const std::size_t n = 100003;
  std::vector<float> values(n), perturbed(n), wrong(n);
  for (std::size_t i = 0; i < n; ++i) {
    values[i] = std::sin(0.001f * float(i)) + 2.0f;  // in [1, 3]: 1% off is beyond the floor everywhere
    perturbed[i] = values[i] * (1.0f + 1e-6f);
    wrong[i] = values[i] * 1.01f;
  }
  DeviceBuffer y(n * sizeof(float));
  upload(y, values);
  TimedOutputCheck check({{"y", y.get(), std::int64_t(n), n * sizeof(float), DType::f32}}, snapshot, nullptr);
  check.take_snapshot();
  const std::vector<const std::vector<float>*> writes = {&values, nullptr, &perturbed, &wrong};
  for (int k = 0; k < 4; ++k) {
    check.disturb(k);
    if (writes[k]) upload(y, *writes[k]);
    check.check(k);
  }
  return check.finish();
}

TEST(TimedOutputCheck, TheSnapshotCountsSkippedAndWrongElementsNotRounding) {
  const TimedOutputReport r = four_samples(true);
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_EQ(r.outputs[0].disturbed, 100003u);
  EXPECT_EQ(r.outputs[0].differing, 100003u);
  EXPECT_EQ(r.outputs[0].first_sample, 1);
  EXPECT_FALSE(r.clean());
  EXPECT_NE(r.describe().find("y: 100003 elements still held the disturbance"), std::string::npos) << r.describe();
}

TEST(TimedOutputCheck, TheDigestCountsSkippedElementsAndWrongSamples) {
  const TimedOutputReport r = four_samples(false);
  EXPECT_EQ(r.outputs[0].disturbed, 100003u);
  EXPECT_EQ(r.outputs[0].differing, 1u);  // sample 3
  EXPECT_EQ(r.outputs[0].first_sample, 1);
}

// The right values in the wrong places keep the sum of magnitudes; the projections move.
TEST(TimedOutputCheck, TheDigestSeesValuesInTheWrongPlaces) {
  const std::size_t n = 65537;
  std::vector<float> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = std::cos(0.01f * float(i));
  const std::vector<float> reversed(values.rbegin(), values.rend());
  DeviceBuffer y(n * sizeof(float));
  upload(y, values);
  TimedOutputCheck check({{"y", y.get(), std::int64_t(n), n * sizeof(float), DType::f32}}, false, nullptr);
  check.take_snapshot();
  check.disturb(0);
  upload(y, reversed);
  check.check(0);
  const TimedOutputReport r = check.finish();
  EXPECT_EQ(r.outputs[0].disturbed, 0u);
  EXPECT_EQ(r.outputs[0].differing, 1u);
}

TEST(TimedOutputCheck, AnHonestLoopIsClean) {
  const std::size_t n = 4097;
  std::vector<float> values(n, 2.0f);
  DeviceBuffer y(n * sizeof(float));
  upload(y, values);
  for (bool snapshot : {true, false}) {
    TimedOutputCheck check({{"y", y.get(), std::int64_t(n), n * sizeof(float), DType::f32}}, snapshot, nullptr);
    check.take_snapshot();
    for (int k = 0; k < 5; ++k) {
      check.disturb(k);
      upload(y, values);
      check.check(k);
    }
    EXPECT_TRUE(check.finish().clean()) << snapshot;
  }
}

TEST(DeviceClock, StampsAroundOneMillisecondOfWorkAgreeWithTheEvents) {
  DeviceClock clock(2);
  EventTimer timer(nullptr);
  double event_ms = 0;
  clock.stamp(0, nullptr);
  event_ms = timer.time_ms([] { spin_ns<<<1, 1>>>(1000000ull); }, [&] { clock.stamp(1, nullptr); });
  const std::vector<double> device_ms = stamp_intervals_ms(clock.read(2, nullptr));
  ASSERT_EQ(device_ms.size(), 1u);
  EXPECT_GE(device_ms[0], event_ms * 0.99);
  EXPECT_LT(device_ms[0], event_ms + 0.1);
}

TEST(DeviceChecks, BothPoisonPayloadsReadAsUnwritten) {
  const std::size_t n = 1001;
  DeviceBuffer buf(n * sizeof(float));
  for (int payload : {0, 1}) {
    poison_async(buf.get(), n * sizeof(float), nullptr, false, payload);
    std::vector<float> host(n);
    NB_CUDA_CHECK(cudaMemcpy(host.data(), buf.get(), n * sizeof(float), cudaMemcpyDeviceToHost));
    for (std::size_t i = 0; i < n; ++i) ASSERT_TRUE(is_poison(host[i])) << payload << " " << i;
  }
}

TEST(DeviceChecks, TheWorkspaceGetsANaNThenAHugeValueToItsLastByte) {
  const std::size_t bytes = 4 * 1000 + 3;
  DeviceBuffer buf(bytes);
  for (int payload : {0, 1}) {
    NB_CUDA_CHECK(cudaMemset(buf.get(), 0, bytes));
    scribble_async(buf.get(), bytes, nullptr, payload);
    std::vector<unsigned char> host(bytes);
    NB_CUDA_CHECK(cudaMemcpy(host.data(), buf.get(), bytes, cudaMemcpyDeviceToHost));
    std::uint32_t first;
    std::memcpy(&first, host.data(), sizeof first);
    EXPECT_EQ(first, payload ? kScribbleFiniteBits : stored::kPoisonBits);
    for (std::size_t i = 4000; i < bytes; ++i) EXPECT_NE(host[i], 0) << payload << ": byte " << i;
  }
}

TEST(PersistingL2, ALimitAndAWindowAreFoundAndReset) {
  int device = 0;
  cudaDeviceProp prop{};
  NB_CUDA_CHECK(cudaGetDevice(&device));
  NB_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  if (prop.persistingL2CacheMaxSize <= 0) GTEST_SKIP() << "no persisting L2 on this GPU";
  cudaStream_t stream;
  NB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  // The H100 host showed a limit of 9830400 bytes in a fresh process, before this test set any:
  // what it starts with is the device's, so it is reset first and the planted settings found after.
  find_and_reset_persisting_l2(stream);
  EXPECT_EQ(find_and_reset_persisting_l2(stream), "");
  DeviceBuffer data(1 << 20);
  NB_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, size_t(prop.persistingL2CacheMaxSize)));
  cudaStreamAttrValue value{};
  value.accessPolicyWindow.base_ptr = data.get();
  value.accessPolicyWindow.num_bytes = data.bytes();
  value.accessPolicyWindow.hitRatio = 1.0f;
  value.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
  value.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
  NB_CUDA_CHECK(cudaStreamSetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &value));
  const std::string found = find_and_reset_persisting_l2(stream);
  EXPECT_NE(found.find("persisting L2 limit"), std::string::npos) << found;
  EXPECT_NE(found.find("access-policy window of 1048576 bytes"), std::string::npos) << found;
  EXPECT_EQ(find_and_reset_persisting_l2(stream), "") << "reset";
  NB_CUDA_CHECK(cudaStreamDestroy(stream));
}

}  // namespace
}  // namespace nb
