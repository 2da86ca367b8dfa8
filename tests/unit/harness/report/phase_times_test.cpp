// Where a run's seconds went: the totals by phase, their JSON form (one for the report and the
// candidate worker), and the report page's section.
#include <gtest/gtest.h>

#include "harness/report/page/html_report.hpp"
#include "harness/report/json/phases_json.hpp"
#include "harness/report/report_loading.hpp"
#include "report_test_support.hpp"

namespace nb {
namespace {

RunPhases run_phases() {
  RunPhases run;
  run.total_s = 100, run.setup_s = 1, run.copy_ceiling_s = 2, run.validation_s = 60, run.timing_s = 30;
  return run;
}

ProblemPhases problem(const std::string& id, double draw, double reference) {
  ProblemPhases p;
  p.problem = id, p.reference = "device", p.draw_s = draw, p.reference_s = reference, p.audit_gather_s = 0.125;
  p.audit_wait_s = 0.375, p.upload_s = 0.25;
  p.timing_inputs_s = 0.125, p.ceiling_s = 2;
  return p;
}

CasePhases case_phases(double uniform, double normal, double timing) {
  CasePhases c;
  c.add_validation(Distribution::uniform01, uniform);
  c.add_validation(Distribution::normal, normal);
  c.add_validation(Distribution::uniform01, uniform);  // a second trial adds to its distribution
  c.timing_s = timing, c.bracket_s = 0.5, c.recheck_s = 0.25, c.launches_s = 0.125;
  return c;
}

TEST(PhaseTimes, TotalsSumEachPhaseOverProblemsAndCases) {
  const PhaseTotals t = sum_phases(run_phases(), {problem("a", 1, 2), problem("b", 3, 4)},
                                   {case_phases(1, 2, 10), case_phases(0.5, 0.5, 5)});
  EXPECT_DOUBLE_EQ(t.draw, 4);
  EXPECT_DOUBLE_EQ(t.reference, 6);
  EXPECT_DOUBLE_EQ(t.audit_gather, 0.25);
  EXPECT_DOUBLE_EQ(t.audit_wait, 0.75);
  EXPECT_DOUBLE_EQ(t.audit(), 1);
  EXPECT_DOUBLE_EQ(t.upload, 0.5);
  EXPECT_DOUBLE_EQ(t.timing_inputs, 0.25);
  EXPECT_DOUBLE_EQ(t.compute_ceilings, 4);
  EXPECT_DOUBLE_EQ(t.variants, 2 * 1 + 2 + 2 * 0.5 + 0.5);
  EXPECT_DOUBLE_EQ(t.samples, 15);
  EXPECT_DOUBLE_EQ(t.brackets, 1);
  EXPECT_DOUBLE_EQ(t.rechecks, 0.5);
  EXPECT_DOUBLE_EQ(t.launches, 0.25);
  EXPECT_DOUBLE_EQ(t.other(), 100 - 1 - 2 - 60 - 30);
}

TEST(PhaseTimes, CasePhasesSurviveTheirJsonForm) {
  const CasePhases c = case_phases(1.5, 2.25, 10);
  const nlohmann::json j = case_phases_json(c);
  EXPECT_DOUBLE_EQ(j.at("validation_s").at("uniform01").get<double>(), 3.0);
  EXPECT_DOUBLE_EQ(j.at("total_s").get<double>(), c.total());
  const CasePhases back = case_phases_from(nlohmann::json::parse(j.dump()));
  ASSERT_EQ(back.validation_s.size(), 2u);
  EXPECT_EQ(back.validation_s[0].first, Distribution::uniform01);
  EXPECT_DOUBLE_EQ(back.validation_s[0].second, 3.0);
  EXPECT_DOUBLE_EQ(back.validation_s[1].second, 2.25);
  EXPECT_DOUBLE_EQ(back.timing_s, 10);
  EXPECT_DOUBLE_EQ(back.bracket_s, 0.5);
  EXPECT_DOUBLE_EQ(back.recheck_s, 0.25);
  EXPECT_DOUBLE_EQ(back.launches_s, 0.125);
  EXPECT_DOUBLE_EQ(back.total(), 3.0 + 2.25 + 10 + 0.5 + 0.25 + 0.125);
  EXPECT_THROW(case_phases_from(nlohmann::json::object()), nlohmann::json::exception);
}

TEST(PhaseTimes, TheReportPageShowsWhereTheTimeWent) {
  nlohmann::json report = test::load_fixture("report_fixture.json");
  EXPECT_EQ(render_report_html(report).find("Where the time went"), std::string::npos)
      << "a report without phases (minor 3) shows no section";
  const std::vector<ProblemPhases> problems = {problem(report["results"][0]["problem"], 7.25, 3)};
  const PhaseTotals totals = sum_phases(run_phases(), problems, {case_phases(1, 2, 10)});
  report["phases"] = nlohmann::json::parse(run_phases_json(run_phases(), totals, problems).dump());
  report["results"][0]["phases"] = nlohmann::json::parse(case_phases_json(case_phases(1, 2, 10)).dump());
  const std::string html = render_report_html(report);
  ASSERT_NE(html.find("Where the time went"), std::string::npos);
  EXPECT_NE(html.find(">60.00<"), std::string::npos) << "the validation seconds";
  EXPECT_NE(html.find(">60.0%<"), std::string::npos) << "their share of the run";
  EXPECT_NE(html.find(">7.25<"), std::string::npos) << "the problem's draw";
  EXPECT_NE(html.find(">4.00<"), std::string::npos) << "its row's own validation, summed";
  EXPECT_NE(html.find("its copies from the device, before the variants"), std::string::npos);
  EXPECT_NE(html.find("the wait for its host part, not hidden by the variants"), std::string::npos);
  EXPECT_NE(html.find(">0.38<"), std::string::npos) << "the problem's audit wait";
}

TEST(PhaseTimes, TheAuditIsSplitIntoItsCopiesAndTheWaitForItsHostPart) {
  const std::vector<ProblemPhases> problems = {problem("a", 1, 2), problem("b", 3, 4)};
  const PhaseTotals totals = sum_phases(run_phases(), problems, {});
  const nlohmann::json j = run_phases_json(run_phases(), totals, problems);
  EXPECT_DOUBLE_EQ(j.at("validation").at("audit_gather_s").get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(j.at("validation").at("audit_wait_s").get<double>(), 0.75);
  EXPECT_DOUBLE_EQ(j.at("validation").at("audit_s").get<double>(), 1.0) << "their sum, as before";
  const nlohmann::json& a = j.at("problems").at(0);
  EXPECT_DOUBLE_EQ(a.at("audit_gather_s").get<double>(), 0.125);
  EXPECT_DOUBLE_EQ(a.at("audit_wait_s").get<double>(), 0.375);
  EXPECT_DOUBLE_EQ(a.at("audit_s").get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(a.at("total_s").get<double>(), problems[0].total());
}

TEST(PhaseTimes, OlderReportsLoadWithNullPhases) {
  nlohmann::json report = test::load_fixture("report_fixture.json");
  report.erase("phases");
  for (auto& row : report["results"]) row.erase("phases");
  fill_fields_of_newer_minors(report);
  EXPECT_TRUE(report.at("phases").is_null());
  for (const auto& row : report["results"]) EXPECT_TRUE(row.at("phases").is_null());
}

}  // namespace
}  // namespace nb
