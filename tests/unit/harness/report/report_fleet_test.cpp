#include "harness/errors.hpp"
#include "harness/report/fleet/fleet.hpp"
#include "harness/report/report_commands.hpp"
#include "report_test_support.hpp"

#include <gtest/gtest.h>

namespace nb {
namespace {

using test::load_fixture;

std::optional<BestVariant> best_of(const nlohmann::json& report, const std::string& problem) {
  return best_passing_variant(rows_where(all_results(report), "problem", problem), report, ComputeCeilings(report));
}

TEST(ReportFleet, PicksTheFastestPassingVariantPerGpu) {
  nlohmann::json h100 = load_fixture("report_fixture.json"), a100 = load_fixture("report_fixture_other_gpu.json");
  auto best_h100 = best_of(h100, "rmsnorm_rows/m32768_n4096/fp32");
  ASSERT_TRUE(best_h100);
  EXPECT_EQ(best_h100->variant, "vector");
  EXPECT_NEAR(*best_h100->pct_of_copy, 91.22, 1e-9);
  auto best_gn = best_of(a100, "groupnorm/n16_c64_h256_w256_g8/fp32");
  ASSERT_TRUE(best_gn);
  EXPECT_EQ(best_gn->variant, "fused_affine");
}

TEST(ReportFleet, IgnoresIncorrectRowsEvenWhenFastest) {
  nlohmann::json h100 = load_fixture("report_fixture.json"), a100 = load_fixture("report_fixture_other_gpu.json");
  // smem is the fastest on both, and incorrect on both.
  EXPECT_EQ(best_of(h100, "rmsnorm_rows/m32768_n8192/fp32")->variant, "vector");
  EXPECT_EQ(best_of(a100, "rmsnorm_rows/m4096_n4096/fp32")->variant, "vector");
}

TEST(ReportFleet, IgnoresFasterThanLightTimings) {
  nlohmann::json h100 = load_fixture("report_fixture.json");
  EXPECT_EQ(best_of(h100, "rmsnorm_rows/m4096_n4096/fp32")->variant, "warp");  // vector is flagged
}

TEST(ReportFleet, NoPassingVariantGivesNothing) {
  nlohmann::json report = test::tiny_report("GPU A", {{"warp", 1.0, 0.01}, {"naive", 2.0, 0.01}});
  report["results"][0]["disposition"] = "incorrect";
  report["results"][1]["status"] = "skipped";
  EXPECT_FALSE(best_of(report, "softmax/m16_n16384/fp32"));
  std::string html = render_fleet_html(label_fleet_runs({{"a.json", report}}));
  EXPECT_NE(html.find("no passing variant"), std::string::npos);
}

TEST(ReportFleet, PageShowsEachGpuSideBySide) {
  std::string html = render_fleet_html(label_fleet_runs(
      {{"h100.json", load_fixture("report_fixture.json")}, {"a100.json", load_fixture("report_fixture_other_gpu.json")}}));
  EXPECT_NE(html.find("<th data-key=\"gpu-NVIDIA H100 80GB HBM3\""), std::string::npos);
  EXPECT_NE(html.find("<th data-key=\"gpu-NVIDIA A100-SXM4-80GB\""), std::string::npos);
  EXPECT_NE(html.find("<b>warp</b> 81.6%"), std::string::npos);  // H100 m4096_n4096
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_GE(html.find("<svg "), 1u);
}

TEST(ReportFleet, TwoRunsOfOneGpuGetDistinctLabels) {
  auto runs = label_fleet_runs({{"a", load_fixture("report_fixture.json")}, {"b", load_fixture("report_fixture_new.json")}});
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_NE(runs[0].label, runs[1].label);
  EXPECT_NE(runs[1].label.find("2026-11-29"), std::string::npos);
}

// run --devices starts both GPUs of a host at once: the run id (the report's folder) tells them
// apart where the start time cannot.
TEST(ReportFleet, TwoGpusOfOneHostStartedTogetherGetTheirRunIds) {
  const nlohmann::json report = load_fixture("report_fixture.json");
  auto runs = label_fleet_runs({{"reports/h200/20261123T015905Z-gpu0/report.json", report},
                                {"reports/h200/20261123T015905Z-gpu1/report.json", report}});
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_NE(runs[0].label.find("20261123T015905Z-gpu0"), std::string::npos) << runs[0].label;
  EXPECT_NE(runs[1].label.find("20261123T015905Z-gpu1"), std::string::npos) << runs[1].label;
}

TEST(ReportFleetCommand, SearchesFoldersRecursivelyForReportJson) {
  test::TempFolder folder;
  std::filesystem::create_directories(folder.path / "h100" / "run1");
  std::filesystem::create_directories(folder.path / "a100" / "deep" / "run2");
  std::filesystem::copy_file(test::fixture_path("report_fixture.json"), folder.path / "h100" / "run1" / "report.json");
  std::filesystem::copy_file(test::fixture_path("report_fixture_other_gpu.json"),
                             folder.path / "a100" / "deep" / "run2" / "report.json");
  test::write_json(folder.file("h100/run1/notes.json"), nlohmann::json{{"not", "a report"}});  // not named report.json
  std::string out = folder.file("fleet.html");
  EXPECT_EQ(fleet_command({folder.path.string()}, out), 0);
  std::string html = test::read_text(out);
  EXPECT_NE(html.find("NVIDIA H100 80GB HBM3"), std::string::npos);
  EXPECT_NE(html.find("NVIDIA A100-SXM4-80GB"), std::string::npos);
  EXPECT_NE(html.find("fleet: 2 reports"), std::string::npos);
}

TEST(ReportFleetCommand, RefusesMissingInputsAndEmptyFolders) {
  test::TempFolder folder;
  EXPECT_THROW(fleet_command({folder.file("absent")}, folder.file("fleet.html")), UsageError);
  EXPECT_THROW(fleet_command({folder.path.string()}, folder.file("fleet.html")), UsageError);
}

}  // namespace
}  // namespace nb
