// The kernels each case's extra untimed launch puts on the GPU, as CUPTI records them into the
// report's `launches`: a one-kernel variant's geometry as its launch code computes it, a
// three-pass variant's kernels in launch order, a library baseline's kernels recorded like ours,
// and no capture at all with --no-launches or in --profile mode.
#include <gtest/gtest.h>

#include <set>

#include "gpu_harness.hpp"
#include "harness/run/launch_recording.hpp"
#include "harness/run/runner.hpp"

namespace nb::test {
namespace {

// The one case's record, after a validated run of `variant` on `params`; the test is skipped (with
// the reason) when another CUPTI client holds CUPTI, as under Nsight or compute-sanitizer.
CaseLaunches recorded(const std::string& op_name, const std::string& variant, const Params& params,
                      RunOptions options = validate_only_options()) {
  const OpSpec& op = registry().op(op_name);
  Variant* v = op.find_variant(variant);
  if (v == nullptr) ADD_FAILURE() << op_name << " has no variant " << variant;
  if (v == nullptr) return CaseLaunches::unavailable("no such variant");
  const RunRecord r = run_cases({{&op, v, op.make_problem(params), {}}}, options);
  const CaseOutcome& o = r.outcomes.at(0);
  EXPECT_EQ(o.status, CaseStatus::ran) << describe(o);
  EXPECT_TRUE(o.launches.has_value()) << "a case that ran has a launches record";
  return o.launches.value_or(CaseLaunches::unavailable("none"));
}

bool another_cupti_client(const CaseLaunches& l) {
  return !l.available && l.reason.find("MULTIPLE_SUBSCRIBERS") != std::string::npos;
}

TEST(LaunchRecording, AOneKernelVariantRecordsTheGeometryItsLaunchComputes) {
  // rmsnorm_nchw's naive: one thread a (n, h, w) position, 256 a block: 2*16*16 = 512 positions, 2 blocks.
  const CaseLaunches l = recorded("rmsnorm_nchw", "naive", {{"n", 2}, {"c", 64}, {"h", 16}, {"w", 16}});
  if (another_cupti_client(l)) GTEST_SKIP() << l.reason;
  ASSERT_TRUE(l.available) << l.reason;
  EXPECT_EQ(l.dropped_records, 0u);
  ASSERT_EQ(l.kernels.size(), 1u);
  const LaunchedKernel& k = l.kernels[0];
  EXPECT_EQ(k.count, 1);
  EXPECT_EQ(k.short_name, "rmsnorm_nchw_naive");
  EXPECT_NE(k.launch.mangled_name, k.demangled_name) << "a C++ kernel's symbol is mangled";
  EXPECT_EQ(k.launch.grid, (LaunchDims{2, 1, 1}));
  EXPECT_EQ(k.launch.block, (LaunchDims{256, 1, 1}));
  EXPECT_EQ(k.launch.cluster, (LaunchDims{1, 1, 1}));
  EXPECT_GT(k.launch.registers_per_thread, 0);
  EXPECT_LE(k.launch.registers_per_thread, 255);
  EXPECT_EQ(k.launch.static_shared_bytes, 0);
  EXPECT_EQ(k.launch.dynamic_shared_bytes, 0);
  EXPECT_TRUE(k.launch.on_case_stream);
  EXPECT_TRUE(k.timed);
  EXPECT_GT(k.total_ns, 0u);
}

TEST(LaunchRecording, AThreePassVariantRecordsEachKernelInLaunchOrder) {
  // batchnorm_train's split: per-slice Welford partials, their merge per channel, then the y pass.
  const CaseLaunches l = recorded("batchnorm_train", "split", {{"n", 16}, {"c", 64}, {"h", 32}, {"w", 32}});
  if (another_cupti_client(l)) GTEST_SKIP() << l.reason;
  ASSERT_TRUE(l.available) << l.reason;
  EXPECT_EQ(l.launch_count(), 3);
  ASSERT_EQ(l.kernels.size(), 3u);
  EXPECT_NE(l.kernels[0].short_name.find("partials"), std::string::npos) << l.kernels[0].demangled_name;
  EXPECT_EQ(l.kernels[1].short_name, "finalize") << l.kernels[1].demangled_name;
  EXPECT_NE(l.kernels[2].short_name.find("normalize"), std::string::npos) << l.kernels[2].demangled_name;
  std::set<std::string> names;
  for (const LaunchedKernel& k : l.kernels) {
    names.insert(k.launch.mangled_name);
    EXPECT_GT(k.launch.grid.x * k.launch.grid.y * k.launch.grid.z, 0) << k.short_name;
    EXPECT_GE(k.launch.block.x * k.launch.block.y * k.launch.block.z, 32) << k.short_name;
    EXPECT_GT(k.launch.registers_per_thread, 0) << k.short_name;
    EXPECT_TRUE(k.launch.on_case_stream) << k.short_name;
  }
  EXPECT_EQ(names.size(), 3u);
}

TEST(LaunchRecording, ALibraryBaselinesKernelsAreRecordedLikeOurs) {
  const CaseLaunches l = recorded("softmax", "cudnn", {{"m", 64}, {"n", 4096}});
  if (another_cupti_client(l)) GTEST_SKIP() << l.reason;
  ASSERT_TRUE(l.available) << l.reason;
  ASSERT_GE(l.kernels.size(), 1u);
  for (const LaunchedKernel& k : l.kernels) {
    EXPECT_FALSE(k.launch.mangled_name.empty());
    EXPECT_FALSE(k.short_name.empty()) << k.demangled_name;
    EXPECT_GT(k.launch.registers_per_thread, 0) << k.demangled_name;
    EXPECT_GE(k.launch.block.x * k.launch.block.y * k.launch.block.z, 32) << k.demangled_name;
  }
}

TEST(LaunchRecording, NoLaunchesAndProfileModeRecordNothingAndSayWhy) {
  const Params small = {{"n", 2}, {"c", 64}, {"h", 16}, {"w", 16}};
  RunOptions off = validate_only_options();
  off.record_launches = false;
  const CaseLaunches none = recorded("rmsnorm_nchw", "naive", small, off);
  EXPECT_FALSE(none.available);
  EXPECT_EQ(none.reason, kLaunchesOff);
  RunOptions profile;
  profile.profile = true;
  profile.progress = false;
  const CaseLaunches profiled = recorded("rmsnorm_nchw", "naive", small, profile);
  EXPECT_FALSE(profiled.available);
  EXPECT_EQ(profiled.reason, kLaunchesNotInProfileMode);
}

}  // namespace
}  // namespace nb::test
