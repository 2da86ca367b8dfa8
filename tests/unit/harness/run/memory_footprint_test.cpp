// The memory estimate that decides whether a problem can run before anything is allocated.
#include <gtest/gtest.h>

#include "harness/run/memory_footprint.hpp"

namespace nb {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

TEST(MemoryFootprint, CountsTensorsWorkspaceFlushAndHostCopies) {
  FootprintInputs in;
  in.decls = {{"x", TensorRole::input, 1000}, {"y", TensorRole::output, 1000}, {"running", TensorRole::inout, 10}};
  in.workspace_bytes = 4096;
  in.flush_bytes = 1 << 20;
  const MemoryFootprint f = estimate_footprint(in);
  EXPECT_DOUBLE_EQ(f.device_bytes, 2010 * 4 + 4096 + (1 << 20) + kDeviceHeadroomBytes);
  // inputs (x, running) as float; references float64 and results float for y and running
  EXPECT_DOUBLE_EQ(f.host_bytes, 1010 * 4 + 1010 * 12);
  in.fresh_buffers_per_trial = true;
  EXPECT_DOUBLE_EQ(estimate_footprint(in).device_bytes, 2 * (2010 * 4 + 4096) + (1 << 20) + kDeviceHeadroomBytes);
}

TEST(MemoryFootprint, TheIssuesShapeDoesNotFitAnH100) {
  // rmsnorm_nchw n=1024,c=64,h=512,w=512: x and y of 2^34 floats each, 128 GiB.
  FootprintInputs in;
  const std::int64_t n = std::int64_t(1024) * 64 * 512 * 512;
  in.decls = {{"x", TensorRole::input, n}, {"y", TensorRole::output, n}};
  in.flush_bytes = 100u << 20;
  const MemoryFootprint f = estimate_footprint(in);
  const auto why = why_it_does_not_fit(f, 79.1 * kGiB, 1e15);
  ASSERT_TRUE(why.has_value());
  EXPECT_EQ(*why, "needs 128.6 GiB of device memory, 79.1 GiB free");
  const auto host = why_it_does_not_fit({1, 300 * kGiB}, 80 * kGiB, 200 * kGiB);
  ASSERT_TRUE(host.has_value());
  EXPECT_EQ(*host, "needs 300.0 GiB of host memory, 200.0 GiB available");
  EXPECT_FALSE(why_it_does_not_fit({1 * kGiB, 1 * kGiB}, 2 * kGiB, 2 * kGiB).has_value());
}

TEST(MemoryFootprint, TheTimedOutputSnapshotFallsBackToADigestWhereItDoesNotFit) {
  const OutputCheckPlan fits = plan_output_check(4 * kGiB, 10 * kGiB);
  EXPECT_TRUE(fits.snapshot);
  EXPECT_EQ(fits.note, "");
  const OutputCheckPlan tight = plan_output_check(4 * kGiB, 4 * kGiB);  // no room for the headroom
  EXPECT_FALSE(tight.snapshot);
  EXPECT_EQ(tight.note, "a copy of the outputs needs 4.0 GiB of device memory, 4.0 GiB free: compared by digest");
}

TEST(MemoryFootprint, HugeShapesDoNotWrapAround) {
  FootprintInputs in;
  in.decls = {{"x", TensorRole::input, std::int64_t(1) << 62}, {"y", TensorRole::output, std::int64_t(1) << 62}};
  EXPECT_GT(estimate_footprint(in).device_bytes, 1e19);
}

TEST(MemoryFootprint, ParsesMemAvailable) {
  EXPECT_EQ(parse_mem_available("MemTotal:       131072000 kB\nMemFree:  1 kB\nMemAvailable:   65536 kB\n"),
            65536.0 * 1024);
  EXPECT_FALSE(parse_mem_available("MemTotal: 1 kB\n").has_value());
  EXPECT_FALSE(parse_mem_available("MemAvailable: lots\n").has_value());
  EXPECT_FALSE(parse_mem_available("MemAvailable: -5 kB\n").has_value());
  EXPECT_GT(host_memory_available(), 0);
}

}  // namespace
}  // namespace nb
