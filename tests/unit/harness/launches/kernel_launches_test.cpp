// The kernels of a case's recorded launch: identical consecutive launches merged into one entry
// with a count and durations (as nsys's kernel summary counts instances), everything else kept in
// launch order; and the record's JSON form, the report's and eval's worker's.
#include <gtest/gtest.h>

#include "harness/launches/kernel_launches.hpp"
#include "harness/report/json/launches_json.hpp"

namespace nb {
namespace {

KernelLaunch launch(const std::string& name, std::uint64_t start, std::uint64_t end) {
  KernelLaunch l;
  l.mangled_name = name;
  l.grid = {132, 1, 1};
  l.block = {256, 1, 1};
  l.registers_per_thread = 40;
  l.static_shared_bytes = 1024;
  l.dynamic_shared_bytes = 49152;
  l.start_ns = start;
  l.end_ns = end;
  return l;
}

// The record's JSON as a reader parses it.
nlohmann::json written(const CaseLaunches& c) { return nlohmann::json::parse(case_launches_json(c).dump()); }

const char* const kPartials = "_ZN2nb15batchnorm_train5split12_GLOBAL__N_113partials_rowsILi4EEEvNS_2bn7FwdArgsENS1_9SplitGeomEPNS_7WelfordE";

TEST(KernelLaunches, IdenticalConsecutiveLaunchesMergeWithTheirCountAndDurations) {
  const auto merged = merge_consecutive({launch("a", 100, 110), launch("a", 200, 230), launch("a", 300, 320)});
  ASSERT_EQ(merged.size(), 1u);
  EXPECT_EQ(merged[0].count, 3);
  EXPECT_TRUE(merged[0].timed);
  EXPECT_EQ(merged[0].total_ns, 60u);
  EXPECT_EQ(merged[0].min_ns, 10u);
  EXPECT_EQ(merged[0].max_ns, 30u);
}

TEST(KernelLaunches, OnlyConsecutiveLaunchesMergeAndTheOrderStays) {
  const auto merged = merge_consecutive({launch("a", 0, 1), launch("b", 2, 3), launch("a", 4, 5)});
  ASSERT_EQ(merged.size(), 3u);
  EXPECT_EQ(merged[0].launch.mangled_name, "a");
  EXPECT_EQ(merged[1].launch.mangled_name, "b");
  EXPECT_EQ(merged[2].launch.mangled_name, "a");
  for (const auto& k : merged) EXPECT_EQ(k.count, 1);
}

TEST(KernelLaunches, AnyDifferenceInGeometryResourcesOrStreamKeepsLaunchesApart) {
  const KernelLaunch base = launch("a", 0, 1);
  std::vector<KernelLaunch> variations(8, base);
  variations[1].grid.y = 2;
  variations[2].block.x = 128;
  variations[3].cluster.x = 2;
  variations[4].registers_per_thread = 41;
  variations[5].static_shared_bytes = 0;
  variations[6].dynamic_shared_bytes = 0;
  variations[7].on_case_stream = false;
  for (std::size_t i = 1; i < variations.size(); ++i) {
    EXPECT_FALSE(base.same_launch_as(variations[i])) << "variation " << i;
    EXPECT_EQ(merge_consecutive({base, variations[i]}).size(), 2u) << "variation " << i;
  }
  EXPECT_TRUE(base.same_launch_as(launch("a", 50, 90))) << "timestamps are not part of a launch's identity";
}

TEST(KernelLaunches, ARunWithALaunchCuptiCouldNotTimeHasNoDuration) {
  const auto merged = merge_consecutive({launch("a", 100, 110), launch("a", 0, 0)});
  ASSERT_EQ(merged.size(), 1u);
  EXPECT_EQ(merged[0].count, 2);
  EXPECT_FALSE(merged[0].timed);
  EXPECT_EQ(merged[0].total_ns, 0u);
}

TEST(KernelLaunches, TheRecordNamesItsKernelsAndCountsEveryLaunch) {
  const CaseLaunches c = CaseLaunches::of({launch(kPartials, 0, 5), launch(kPartials, 6, 9), launch("finalize", 9, 12)});
  EXPECT_TRUE(c.available);
  ASSERT_EQ(c.kernels.size(), 2u);
  EXPECT_EQ(c.launch_count(), 3);
  EXPECT_EQ(c.kernels[0].short_name, "partials_rows");
  EXPECT_EQ(c.kernels[0].demangled_name,
            "void nb::batchnorm_train::split::(anonymous namespace)::partials_rows<4>(nb::bn::FwdArgs, "
            "nb::batchnorm_train::split::SplitGeom, nb::Welford*)");
  EXPECT_EQ(c.kernels[1].short_name, "finalize");
}

TEST(LaunchesJson, AKernelCarriesItsNamesGeometryResourcesAndUntimedDuration) {
  KernelLaunch l = launch(kPartials, 1000, 21480);
  l.cluster = {2, 1, 1};
  const nlohmann::json j = written(CaseLaunches::of({l}));
  EXPECT_EQ(j.at("available"), true);
  EXPECT_EQ(j.at("kernel_launches"), 1);
  EXPECT_EQ(j.at("dropped_records"), 0);
  ASSERT_EQ(j.at("kernels").size(), 1u);
  const nlohmann::json& k = j.at("kernels").at(0);
  EXPECT_EQ(k.at("name"), "partials_rows");
  EXPECT_EQ(k.at("mangled"), kPartials);
  EXPECT_EQ(k.at("demangled").get<std::string>().rfind("void nb::batchnorm_train::split::", 0), 0u);
  EXPECT_EQ(k.at("count"), 1);
  EXPECT_EQ(k.at("grid"), nlohmann::json::array({132, 1, 1}));
  EXPECT_EQ(k.at("block"), nlohmann::json::array({256, 1, 1}));
  EXPECT_EQ(k.at("cluster"), nlohmann::json::array({2, 1, 1}));
  EXPECT_EQ(k.at("registers_per_thread"), 40);
  EXPECT_EQ(k.at("static_shared_bytes"), 1024);
  EXPECT_EQ(k.at("dynamic_shared_bytes"), 49152);
  EXPECT_EQ(k.at("on_case_stream"), true);
  EXPECT_EQ(k.at("untimed_ns"), (nlohmann::json{{"total", 20480}, {"min", 20480}, {"max", 20480}}));
}

TEST(LaunchesJson, WithoutTimestampsTheDurationIsNull) {
  const nlohmann::json j = written(CaseLaunches::of({launch("a", 0, 0)}));
  EXPECT_TRUE(j.at("kernels").at(0).at("untimed_ns").is_null());
}

TEST(LaunchesJson, AnUnavailableRecordIsItsReasonAlone) {
  const std::string why = "cuptiSubscribe: CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED";
  const nlohmann::json j = written(CaseLaunches::unavailable(why));
  EXPECT_EQ(j, (nlohmann::json{{"available", false}, {"reason", why}}));
  const CaseLaunches back = case_launches_from(j);
  EXPECT_FALSE(back.available);
  EXPECT_EQ(back.reason, why);
  EXPECT_TRUE(back.kernels.empty());
}

TEST(LaunchesJson, ARecordReadsBackAsWritten) {
  KernelLaunch other = launch("other", 50, 70);
  other.on_case_stream = false;
  CaseLaunches c = CaseLaunches::of({launch(kPartials, 0, 10), launch(kPartials, 20, 50), other, launch("b", 0, 0)});
  c.dropped_records = 2;
  const nlohmann::json j = written(c);
  const CaseLaunches back = case_launches_from(j);
  EXPECT_EQ(written(back), j);
  ASSERT_EQ(back.kernels.size(), 3u);
  EXPECT_EQ(back.kernels[0].count, 2);
  EXPECT_EQ(back.kernels[0].min_ns, 10u);
  EXPECT_EQ(back.kernels[0].max_ns, 30u);
  EXPECT_FALSE(back.kernels[1].launch.on_case_stream);
  EXPECT_FALSE(back.kernels[2].timed);
  EXPECT_EQ(back.dropped_records, 2u);
  EXPECT_THROW(case_launches_from(nlohmann::json{{"available", true}}), nlohmann::json::exception);
}

}  // namespace
}  // namespace nb
