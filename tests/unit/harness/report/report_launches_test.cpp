// Each row's `launches` (schema minor 12) in the report: written for the cases that ran, the
// reason where none were recorded, null in older reports that readers still load, and the kernels'
// geometry on the HTML page.
#include <gtest/gtest.h>

#include <sstream>

#include "harness/report/case_metrics.hpp"
#include "harness/report/json/report_json.hpp"
#include "harness/report/page/html_report.hpp"
#include "harness/report/report_commands.hpp"
#include "harness/report/report_loading.hpp"
#include "report_test_support.hpp"
#include "test_op.hpp"

namespace nb {
namespace {

KernelLaunch kernel(const std::string& mangled, LaunchDims grid, LaunchDims block, std::uint64_t ns) {
  KernelLaunch k;
  k.mangled_name = mangled;
  k.grid = grid;
  k.block = block;
  k.registers_per_thread = 40;
  k.static_shared_bytes = 4096;
  k.dynamic_shared_bytes = 49152;
  k.start_ns = 1000;
  k.end_ns = 1000 + ns;
  return k;
}

std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t count = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++count;
  return count;
}

const char* const kPartials = "_ZN2nb15batchnorm_train5split12_GLOBAL__N_113partials_rowsILi4EEEvNS_2bn7FwdArgsENS1_9SplitGeomEPNS_7WelfordE";
const char* const kCupti = "cuptiSubscribe: CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED";

// Three cases of one problem: the first with three kernels recorded (the second one in a cluster of
// two, the third on another stream), the second with none (CUPTI held elsewhere), the third skipped.
class ReportLaunches : public testing::Test {
 protected:
  void SetUp() override {
    const Problem p = op.make_problem({{"n", 1 << 20}});
    record.provenance.gpu.name = "NVIDIA Test GPU";
    record.provenance.gpu.slug = "nvidia-test-gpu";
    record.ceiling.copy_gbps = 3000;
    for (const auto& v : op.variants()) record.cases.push_back({&op, v.get(), p, {"quick"}});
    record.outcomes.resize(3);
    for (auto& o : record.outcomes) {
      DistributionVerdict d;
      d.seeds = {1000};
      o.validation.distributions = {d};
      o.validation.conclude();
    }
    KernelLaunch clustered = kernel("finalize", {64, 1, 1}, {256, 1, 1}, 3000);
    clustered.cluster = {2, 1, 1};
    KernelLaunch elsewhere = kernel("normalize_rows", {528, 1, 1}, {128, 1, 1}, 9000);
    elsewhere.on_case_stream = false;
    record.outcomes[0].launches = CaseLaunches::of({kernel(kPartials, {264, 1, 1}, {32, 8, 1}, 20480), clustered, elsewhere});
    record.outcomes[0].phases.launches_s = 0.25;
    record.outcomes[1].launches = CaseLaunches::unavailable(kCupti);
    record.outcomes[2].skip("declines the problem");
    record.outcomes[2].launches = CaseLaunches::unavailable("never written: the case did not run");
  }

  nlohmann::json report() { return nlohmann::json::parse(build_report_json(record, compute_metrics(record)).dump()); }

  test::CopyOp op;
  RunRecord record;
};

TEST_F(ReportLaunches, ARowThatRanCarriesItsKernelsOrWhyNone) {
  const nlohmann::json j = report();
  const nlohmann::json& recorded = j["results"][0]["launches"];
  EXPECT_EQ(recorded["available"], true);
  EXPECT_EQ(recorded["kernel_launches"], 3);
  ASSERT_EQ(recorded["kernels"].size(), 3u);
  EXPECT_EQ(recorded["kernels"][0]["name"], "partials_rows");
  EXPECT_EQ(recorded["kernels"][0]["grid"], nlohmann::json::array({264, 1, 1}));
  EXPECT_EQ(recorded["kernels"][1]["cluster"], nlohmann::json::array({2, 1, 1}));
  EXPECT_EQ(recorded["kernels"][2]["on_case_stream"], false);
  EXPECT_EQ(j["results"][1]["launches"], (nlohmann::json{{"available", false}, {"reason", kCupti}}));
  EXPECT_TRUE(j["results"][2]["launches"].is_null()) << "a skipped case launched nothing";
}

TEST_F(ReportLaunches, TheRecordedLaunchsSecondsAreAPhaseOfTheValidation) {
  const nlohmann::json j = report();
  EXPECT_DOUBLE_EQ(j["results"][0]["phases"]["launches_s"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(j["results"][0]["phases"]["total_s"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(j["phases"]["validation"]["launches_s"].get<double>(), 0.25);
}

TEST_F(ReportLaunches, ThePageShowsEachKernelsGeometryAndResources) {
  nlohmann::json j = report();
  fill_fields_of_newer_minors(j);
  const std::string html = render_report_html(j);
  EXPECT_NE(html.find("3 kernels: partials_rows, finalize, normalize_rows"), std::string::npos);
  for (const char* cell : {"264\u00d71\u00d71", "32\u00d78\u00d71", "2\u00d71\u00d71", "528\u00d71\u00d71",
                           "<td class=\"num\">40</td>", "4 KiB", "48 KiB", "20.5", "other stream"})
    EXPECT_NE(html.find(cell), std::string::npos) << cell;
  // The full signature is the name's tooltip, escaped.
  EXPECT_NE(html.find("partials_rows&lt;4&gt;(nb::bn::FwdArgs"), std::string::npos);
  EXPECT_NE(html.find("title=\"" + std::string(kCupti) + "\">kernels not recorded</div>"), std::string::npos);
  EXPECT_EQ(count_of(html, "kernels not recorded"), 1u) << "the skipped row has no record";
}

TEST(ReportLaunchesOlderReports, AReportBeforeMinor12LoadsWithNullLaunchesAndRenders) {
  nlohmann::json old = test::load_fixture("report_fixture.json");
  ASSERT_FALSE(old["results"].empty());
  old["results"][0]["phases"] = {{"validation_s", nlohmann::json::object()}, {"timing_s", 1.0}};
  fill_fields_of_newer_minors(old);
  for (const auto& row : old["results"]) {
    ASSERT_TRUE(row.contains("launches"));
    EXPECT_TRUE(row["launches"].is_null());
  }
  EXPECT_TRUE(old["results"][0]["phases"]["launches_s"].is_null());
  const std::string html = render_report_html(old);
  EXPECT_NE(html.find("reproduce / profile"), std::string::npos);
  EXPECT_EQ(html.find("<details class=\"kernels\">"), std::string::npos);
  EXPECT_EQ(html.find("kernels not recorded"), std::string::npos);
}

TEST_F(ReportLaunches, CompareAndFleetTakeAnOldAndANewReportTogether) {
  test::TempFolder folder;
  const std::string fresh = folder.file("new.json");
  test::write_json(fresh, report());
  const std::string old = test::fixture_path("report_fixture.json");
  std::ostringstream printed;
  CompareOptions options;
  options.base_path = old;
  options.new_path = fresh;
  options.json = true;
  options.out = &printed;
  EXPECT_EQ(compare_command(options), 0);
  EXPECT_FALSE(printed.str().empty());
  options.base_path = fresh;
  options.new_path = old;
  EXPECT_EQ(compare_command(options), 0);
  EXPECT_EQ(fleet_command({old, fresh}, folder.file("fleet.html")), 0);
  EXPECT_FALSE(test::read_text(folder.file("fleet.html")).empty());
}

}  // namespace
}  // namespace nb
