#include "harness/errors.hpp"
#include "harness/report/compare/compare_output.hpp"
#include "harness/report/compare/compare_runs.hpp"
#include "harness/report/report_commands.hpp"
#include "report_test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

namespace nb {
namespace {

using test::fixture_path;
using test::load_fixture;

// median with a symmetric p10..p90 interval of `spread` (a fraction of the median).
TimingSpread timing(double median, double spread) { return {median, median * (1 - spread / 2), median * (1 + spread / 2)}; }

const ComparedRow& find_row(const Comparison& c, const std::string& variant, const std::string& problem) {
  auto it = std::find_if(c.rows.begin(), c.rows.end(),
                         [&](const ComparedRow& r) { return r.variant == variant && r.problem == problem; });
  if (it == c.rows.end()) throw std::runtime_error("no compared row " + variant + " " + problem);
  return *it;
}

TEST(ReportCompareNoise, OnePercentChangeWithThreePercentSpreadIsSame) {
  EXPECT_EQ(classify_timing(timing(1.0, 0.03), timing(1.01, 0.03), NoiseRule{}), TimingChange::Same);
  EXPECT_EQ(classify_timing(timing(1.0, 0.03), timing(0.99, 0.03), NoiseRule{}), TimingChange::Same);
}

TEST(ReportCompareNoise, TwentyPercentChangeWithOnePercentSpreadIsSlowerOrFaster) {
  EXPECT_EQ(classify_timing(timing(1.0, 0.01), timing(1.2, 0.01), NoiseRule{}), TimingChange::Slower);
  EXPECT_EQ(classify_timing(timing(1.0, 0.01), timing(0.8, 0.01), NoiseRule{}), TimingChange::Faster);
}

TEST(ReportCompareNoise, FloorAppliesWhenSpreadIsTiny) {
  EXPECT_EQ(classify_timing(timing(1.0, 0.001), timing(1.015, 0.001), NoiseRule{}), TimingChange::Same);
  EXPECT_EQ(classify_timing(timing(1.0, 0.001), timing(1.03, 0.001), NoiseRule{}), TimingChange::Slower);
  EXPECT_DOUBLE_EQ(noise_threshold_pct(timing(1.0, 0.001), timing(1.0, 0.001), NoiseRule{}), 2.0);
}

TEST(ReportCompareNoise, ThresholdCombinesBothSpreads) {
  // 6% and 8% spreads combine to 10%: a 9% change is noise, an 11% change is not.
  EXPECT_NEAR(noise_threshold_pct(timing(1.0, 0.06), timing(1.0, 0.08), NoiseRule{}), 10.0, 1e-9);
  EXPECT_EQ(classify_timing(timing(1.0, 0.06), timing(1.09, 0.08), NoiseRule{}), TimingChange::Same);
  EXPECT_EQ(classify_timing(timing(1.0, 0.06), timing(1.11, 0.08), NoiseRule{}), TimingChange::Slower);
  EXPECT_EQ(classify_timing(timing(1.0, 0.06), timing(1.09, 0.08), NoiseRule{2.0, 0.5}), TimingChange::Slower);
}

TEST(ReportCompareNoise, AMicrosecondIsNoiseForALaunchBoundCase) {
  // 9.2 us with 5% spreads: the 1 us floor (10.9% of it) beats the combined 7.1%.
  EXPECT_NEAR(noise_threshold_pct(timing(0.0092, 0.05), timing(0.0102, 0.05), NoiseRule{}), 100.0 / 9.2, 1e-9);
  EXPECT_EQ(classify_timing(timing(0.0092, 0.05), timing(0.0102, 0.05), NoiseRule{}), TimingChange::Same);
  EXPECT_EQ(classify_timing(timing(0.0092, 0.05), timing(0.0105, 0.05), NoiseRule{}), TimingChange::Slower);
  EXPECT_EQ(classify_timing(timing(0.0102, 0.05), timing(0.0092, 0.05), NoiseRule{}), TimingChange::Same);
  // Without the floor the same pair is SLOWER; at 1 ms the floor is 0.1% and the 2% rule governs.
  EXPECT_EQ(classify_timing(timing(0.0092, 0.05), timing(0.0102, 0.05), NoiseRule{2.0, 1.0, 0.0}), TimingChange::Slower);
  EXPECT_DOUBLE_EQ(noise_threshold_pct(timing(1.0, 0.001), timing(1.0, 0.001), NoiseRule{}), 2.0);
}

TEST(ReportCompare, MatchesRowsByProblemAndVariant) {
  Comparison c = compare_reports(load_fixture("report_fixture.json"), load_fixture("report_fixture_new.json"));
  const ComparedRow& regressed = find_row(c, "warp", "rmsnorm_rows/m4096_n4096/fp32");
  EXPECT_EQ(regressed.change, TimingChange::Slower);
  EXPECT_NEAR(*regressed.ratio, 1.20, 5e-3);  // 20% on top of sub-noise jitter
  // The same variant on another problem did not move.
  EXPECT_EQ(find_row(c, "warp", "rmsnorm_rows/m64_n4096/fp32").change, TimingChange::Same);
  const ComparedRow& faster = find_row(c, "cudnn", "groupnorm/n16_c64_h256_w256_g8/fp32");
  EXPECT_EQ(faster.change, TimingChange::Faster);
  EXPECT_NEAR(*faster.ratio, 0.85, 5e-3);
  EXPECT_EQ(find_row(c, "naive", "rmsnorm_rows/m512_n4096/fp32").change, TimingChange::Same);  // 1% in 3% spread
  EXPECT_EQ(find_row(c, "cudnn", "groupnorm/n112_c64_h512_w512_g8/fp32").change, TimingChange::Untimed);  // skipped
}

TEST(ReportCompare, RowsOnOneSideAreAddedOrRemoved) {
  Comparison c = compare_reports(load_fixture("report_fixture.json"), load_fixture("report_fixture_new.json"));
  EXPECT_EQ(find_row(c, "warp_vec4", "rmsnorm_rows/m32768_n8192/fp32").change, TimingChange::Added);
  const ComparedRow& removed = find_row(c, "fused_affine", "groupnorm/n112_c64_h512_w512_g8/fp32");
  EXPECT_EQ(removed.change, TimingChange::Removed);
  EXPECT_EQ(removed.base_verdict, "error");
  EXPECT_EQ(removed.new_verdict, "");
  EXPECT_EQ(c.rows.size(), 25u);  // 23 paired, 1 added, 1 removed
}

TEST(ReportCompare, VerdictChangesComeFirstRegressionBeforeFix) {
  Comparison c = compare_reports(load_fixture("report_fixture.json"), load_fixture("report_fixture_new.json"));
  ASSERT_GE(c.rows.size(), 3u);
  EXPECT_EQ(c.rows[0].variant, "welford");
  EXPECT_TRUE(c.rows[0].verdict_regressed());
  EXPECT_EQ(c.rows[0].new_verdict, "incorrect");
  EXPECT_EQ(c.rows[0].distribution_changes, std::vector<std::string>{"tiny_var: passed -> failed"});
  EXPECT_EQ(c.rows[1].variant, "smem");
  EXPECT_TRUE(c.rows[1].verdict_changed());
  EXPECT_FALSE(c.rows[1].verdict_regressed());
  EXPECT_EQ(c.rows[2].change, TimingChange::Slower);  // then the slowdowns
}

TEST(ReportCompare, DifferentGpusCompareWithAWarning) {
  Comparison c = compare_reports(load_fixture("report_fixture.json"), load_fixture("report_fixture_other_gpu.json"));
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_NE(c.warnings[0].find("different GPUs"), std::string::npos);
  EXPECT_NE(c.warnings[0].find("A100"), std::string::npos);
  EXPECT_TRUE(compare_reports(load_fixture("report_fixture.json"), load_fixture("report_fixture_new.json")).warnings.empty());
}

TEST(ReportCompare, APlacementThatDiffersComparesWithAWarning) {
  nlohmann::json misaligned = load_fixture("report_fixture_new.json");
  misaligned["settings"]["tensor_placement"] = "misaligned";
  const Comparison c = compare_reports(load_fixture("report_fixture.json"), misaligned);
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_NE(c.warnings[0].find("base: aligned, new: misaligned"), std::string::npos) << c.warnings[0];
  nlohmann::json aligned = load_fixture("report_fixture_new.json");
  aligned["settings"]["tensor_placement"] = "aligned";  // as a fixture without the field places them
  EXPECT_TRUE(compare_reports(load_fixture("report_fixture.json"), aligned).warnings.empty());
}

TEST(ReportCompare, ARowsInFlightSettingThatDiffersComparesWithAWarning) {
  nlohmann::json forced = load_fixture("report_fixture_new.json");
  forced["settings"]["rows_in_flight"] = 3;
  const Comparison c = compare_reports(load_fixture("report_fixture.json"), forced);
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_NE(c.warnings[0].find("base: the device's choice, new: 3"), std::string::npos) << c.warnings[0];
  nlohmann::json unset = load_fixture("report_fixture_new.json");
  unset["settings"]["rows_in_flight"] = nullptr;  // as a fixture without the field
  EXPECT_TRUE(compare_reports(load_fixture("report_fixture.json"), unset).warnings.empty());
  nlohmann::json base = load_fixture("report_fixture.json");
  base["settings"]["rows_in_flight"] = 3;
  EXPECT_TRUE(compare_reports(base, forced).warnings.empty());
}

TEST(ReportCompare, RegressionCheckNamesSlowdownsBeyondThePercentAndLostPasses) {
  Comparison c = compare_reports(load_fixture("report_fixture.json"), load_fixture("report_fixture_new.json"));
  RegressionCheck strict = check_regressions(c, 10.0);
  EXPECT_EQ(strict.reasons.size(), 2u);  // warp 20% slower, welford passed -> incorrect
  RegressionCheck lenient = check_regressions(c, 30.0);
  ASSERT_EQ(lenient.reasons.size(), 1u);  // the verdict regression counts at any percent
  EXPECT_NE(lenient.reasons[0].find("passed -> incorrect"), std::string::npos);
}

int run_compare(const nlohmann::json& base, const nlohmann::json& candidate, std::optional<double> pct, std::string* text = nullptr) {
  test::TempFolder folder;
  test::write_json(folder.file("base.json"), base);
  test::write_json(folder.file("new.json"), candidate);
  std::ostringstream out;
  CompareOptions options;
  options.base_path = folder.file("base.json");
  options.new_path = folder.file("new.json");
  options.fail_on_regression_pct = pct;
  options.out = &out;
  int status = compare_command(options);
  if (text) *text = out.str();
  return status;
}

TEST(ReportCompareCommand, FailOnRegressionExitCodes) {
  nlohmann::json base = test::tiny_report("GPU A", {{"warp", 1.0, 0.01}, {"naive", 2.0, 0.01}});
  nlohmann::json slower = test::tiny_report("GPU A", {{"warp", 1.2, 0.01}, {"naive", 2.0, 0.01}});
  EXPECT_EQ(run_compare(base, slower, 10.0), 1);
  EXPECT_EQ(run_compare(base, slower, 25.0), 0);   // 20% is within the allowance
  EXPECT_EQ(run_compare(base, slower, std::nullopt), 0);  // no flag, no failure
  EXPECT_EQ(run_compare(base, base, 0.0), 0);
  nlohmann::json noisy = test::tiny_report("GPU A", {{"warp", 1.01, 0.03}, {"naive", 2.0, 0.03}});
  EXPECT_EQ(run_compare(base, noisy, 0.5), 0);  // SAME: inside the noise, so never a regression
  nlohmann::json broken = base;
  broken["results"][1]["disposition"] = "incorrect";
  EXPECT_EQ(run_compare(base, broken, 50.0), 1);
  EXPECT_EQ(run_compare(broken, base, 50.0), 0);  // incorrect -> passed is a fix
}

TEST(ReportCompareCommand, TextTableIsAlignedAndSaysTheRule) {
  std::string text;
  run_compare(test::tiny_report("GPU A", {{"warp", 1.0, 0.01}, {"naive", 20.0, 0.01}}),
              test::tiny_report("GPU A", {{"warp", 1.2, 0.01}, {"naive", 20.0, 0.01}}), 10.0, &text);
  EXPECT_NE(text.find("noise rule"), std::string::npos);
  EXPECT_NE(text.find("FAILED"), std::string::npos);
  std::istringstream lines(text);
  std::string line;
  std::vector<std::size_t> ratio_ends;
  while (std::getline(lines, line)) {
    if (line.rfind("change", 0) == 0) ratio_ends.push_back(line.find("new/base") + 8);
    if (line.rfind("SLOWER", 0) == 0) ratio_ends.push_back(line.find("1.200") + 5);
    if (line.rfind("SAME", 0) == 0) ratio_ends.push_back(line.find("1.000") + 5);
  }
  ASSERT_EQ(ratio_ends.size(), 3u);
  EXPECT_EQ(ratio_ends[0], ratio_ends[1]);
  EXPECT_EQ(ratio_ends[1], ratio_ends[2]);
}

TEST(ReportCompareCommand, JsonOutputFollowsTheDocumentedStructure) {
  std::ostringstream out;
  CompareOptions options;
  options.base_path = fixture_path("report_fixture.json");
  options.new_path = fixture_path("report_fixture_new.json");
  options.json = true;
  options.fail_on_regression_pct = 5.0;
  options.out = &out;
  EXPECT_EQ(compare_command(options), 1);
  nlohmann::json doc = nlohmann::json::parse(out.str());
  EXPECT_EQ(doc["schema"], "normbench.compare");
  EXPECT_EQ(doc["counts"]["SLOWER"], 1);
  EXPECT_EQ(doc["counts"]["FASTER"], 1);
  EXPECT_EQ(doc["counts"]["ADDED"], 1);
  EXPECT_EQ(doc["counts"]["REMOVED"], 1);
  EXPECT_EQ(doc["counts"]["verdict_changes"], 2);
  EXPECT_EQ(doc["rows"][0]["verdict_regressed"], true);
  EXPECT_EQ(doc["regression"]["failed"], true);
  EXPECT_EQ(doc["same_gpu"], true);
  EXPECT_EQ(doc["base"]["path"], options.base_path);
}

TEST(ReportCompareCommand, WritesTheHtmlPage) {
  test::TempFolder folder;
  std::ostringstream out;
  CompareOptions options;
  options.base_path = fixture_path("report_fixture.json");
  options.new_path = fixture_path("report_fixture_new.json");
  options.html_out = folder.file("compare.html");
  options.out = &out;
  EXPECT_EQ(compare_command(options), 0);
  std::string html = test::read_text(options.html_out);
  EXPECT_NE(html.find("class=\"cmp-slower\""), std::string::npos);
  EXPECT_NE(html.find("verdict-regressed"), std::string::npos);
  EXPECT_EQ(html.find("http://"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
}

}  // namespace
}  // namespace nb
