// The device-side pieces validation and timing rest on: poison, input hashing, the ceilings.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "harness/cuda_check.hpp"
#include "harness/device_buffer.hpp"
#include "harness/timing/bandwidth_ceiling.hpp"
#include "harness/device/device_checks.hpp"
#include "harness/timing/stream_ceilings.hpp"
#include "harness/distribution.hpp"
#include "harness/stored_value.hpp"
#include "harness/validation/compare.hpp"

namespace nb {
namespace {

TEST(DeviceChecks, PoisonWritesThePatternEverywhere) {
  const std::size_t n = 1000003;
  DeviceBuffer buf(n * sizeof(float));
  NB_CUDA_CHECK(cudaMemset(buf.get(), 0, n * sizeof(float)));
  poison_async(buf.get(), n * sizeof(float), nullptr);
  std::vector<float> host(n);
  NB_CUDA_CHECK(cudaMemcpy(host.data(), buf.get(), n * sizeof(float), cudaMemcpyDeviceToHost));
  for (std::size_t i = 0; i < n; ++i) ASSERT_TRUE(is_poison(host[i])) << i;
}

TEST(DeviceChecks, DeviceHashMatchesHostHashAndSeesOneFlippedBit) {
  std::vector<float> data(777777);  // odd element count: exercises the trailing word
  draw(data, Distribution::normal, 5, 0);
  DeviceBuffer buf(data.size() * sizeof(float));
  NB_CUDA_CHECK(cudaMemcpy(buf.get(), data.data(), data.size() * sizeof(float), cudaMemcpyHostToDevice));
  const auto h = device_hash(buf.get(), buf.bytes(), nullptr);
  EXPECT_EQ(h, host_hash(data.data(), data.size() * sizeof(float)));
  unsigned char byte = 0;
  NB_CUDA_CHECK(cudaMemcpy(&byte, buf.as<char>() + 4444, 1, cudaMemcpyDeviceToHost));
  byte ^= 0x10;
  NB_CUDA_CHECK(cudaMemcpy(buf.as<char>() + 4444, &byte, 1, cudaMemcpyHostToDevice));
  EXPECT_NE(device_hash(buf.get(), buf.bytes(), nullptr), h);
}

// Several buffers hashed at one wait: each its own accumulator, each the host's hash of its bytes.
TEST(DeviceChecks, DeviceHashesOfSeveralBuffersAreEachBuffersOwn) {
  std::vector<float> a(4099), b(3);
  draw(a, Distribution::normal, 6, 0);
  draw(b, Distribution::wide, 7, 0);
  DeviceBuffer da(a.size() * sizeof(float)), db(b.size() * sizeof(float));
  NB_CUDA_CHECK(cudaMemcpy(da.get(), a.data(), da.bytes(), cudaMemcpyHostToDevice));
  NB_CUDA_CHECK(cudaMemcpy(db.get(), b.data(), db.bytes(), cudaMemcpyHostToDevice));
  const std::vector<std::uint64_t> h = device_hashes({{da.get(), da.bytes()}, {db.get(), db.bytes()}, {da.get(), 8}}, nullptr);
  ASSERT_EQ(h.size(), 3u);
  EXPECT_EQ(h[0], host_hash(a.data(), da.bytes()));
  EXPECT_EQ(h[1], host_hash(b.data(), db.bytes()));
  EXPECT_EQ(h[2], host_hash(a.data(), 8));
  EXPECT_TRUE(device_hashes({}, nullptr).empty());
}

// A bf16 tensor placed one element past a boundary (--misaligned) starts on 2 bytes: the poison
// reaches every element and the hash is the host's hash of the same bytes.
TEST(DeviceChecks, PoisonAndHashWorkOnABufferThatStartsOnTwoBytes) {
  const std::size_t elements = 100002;  // whole 4-byte words of bf16
  DeviceBuffer buf(elements * 2 + 16);
  NB_CUDA_CHECK(cudaMemset(buf.get(), 0, buf.bytes()));
  void* const at = buf.as<char>() + 2;
  poison_async(at, elements * 2, nullptr, /*narrow=*/true);
  std::vector<std::uint16_t> bits(elements + 2);
  NB_CUDA_CHECK(cudaMemcpy(bits.data(), buf.get(), bits.size() * 2, cudaMemcpyDeviceToHost));
  EXPECT_EQ(bits[0], 0u) << "nothing before the buffer";
  for (std::size_t i = 1; i <= elements; ++i) ASSERT_EQ(bits[i], stored::narrow_poison_bits(0)) << i;
  EXPECT_EQ(bits[elements + 1], 0u) << "nothing after it";

  std::vector<std::uint16_t> data(elements);
  for (std::size_t i = 0; i < elements; ++i) data[i] = std::uint16_t(i * 2654435761u >> 7);
  NB_CUDA_CHECK(cudaMemcpy(at, data.data(), elements * 2, cudaMemcpyHostToDevice));
  EXPECT_EQ(device_hash(at, elements * 2, nullptr), host_hash(data.data(), elements * 2));
}

TEST(DeviceChecks, CopyCeilingIsBelowTheTheoreticalPeak) {
  const GpuInfo gpu = query_gpu(0);
  const BandwidthCeiling c = measure_bandwidth_ceiling(gpu, nullptr, std::size_t(256) << 20, 10);
  EXPECT_GT(c.peak_gbps, 100.0);
  EXPECT_GT(c.copy_gbps, 0.2 * c.peak_gbps);
  EXPECT_LT(c.copy_gbps, 1.05 * c.peak_gbps);
}

TEST(DeviceChecks, PatternCeilingsAreBelowTheTheoreticalPeak) {
  const GpuInfo gpu = query_gpu(0);
  const double peak = gpu.theoretical_peak_gbps();
  const std::size_t bytes = std::size_t(256) << 20;
  const std::vector<PatternCeiling> ceilings = measure_stream_ceilings(nullptr, bytes, 10);
  ASSERT_EQ(ceilings.size(), 3u);
  EXPECT_EQ(ceilings[0].pattern, "read");
  EXPECT_EQ(ceilings[1].pattern, "write");
  EXPECT_EQ(ceilings[2].pattern, "read2_write1");
  for (const PatternCeiling& c : ceilings) {
    EXPECT_GT(c.gbps, 0.2 * peak) << c.pattern;
    EXPECT_LT(c.gbps, 1.05 * peak) << c.pattern;
    EXPECT_LE(c.bytes_moved, bytes) << c.pattern;
    EXPECT_GT(c.bytes_moved, bytes - 64) << c.pattern;
    EXPECT_EQ(c.samples, 10);
  }
}

}  // namespace
}  // namespace nb
