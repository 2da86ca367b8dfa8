// A partial run (interrupted, or aborted by a lost CUDA context) still ends in a report that says
// so: interrupted, aborted and not_run[] in the JSON, a banner in the HTML, the not_run rows, the
// exit status (130 or 3), and older reports read with the new fields filled in.
#include <gtest/gtest.h>

#include "harness/errors.hpp"
#include "harness/report/case_metrics.hpp"
#include "harness/report/compare/compare_runs.hpp"
#include "harness/report/page/html_report.hpp"
#include "harness/report/json/report_json.hpp"
#include "harness/report/report_loading.hpp"
#include "test_op.hpp"

namespace nb {
namespace {

class PartialReport : public testing::Test {
 protected:
  void SetUp() override {
    const Problem p = op.make_problem({{"n", 1 << 20}});
    record.provenance.gpu.name = "NVIDIA Test GPU";
    record.provenance.gpu.slug = "nvidia-test-gpu";
    for (const auto& v : op.variants()) record.cases.push_back({&op, v.get(), p, {"quick"}});
    record.outcomes.resize(record.cases.size());
    record.outcomes[0].fail("cudaErrorIllegalAddress: an illegal memory access was encountered");
    for (std::size_t i = 1; i < record.outcomes.size(); ++i) record.outcomes[i].not_run("the run was aborted");
  }
  nlohmann::json report() {
    return nlohmann::json::parse(build_report_json(record, compute_metrics(record)).dump());
  }

  test::CopyOp op;
  RunRecord record;
};

TEST_F(PartialReport, AbortedRunSaysWhyAndListsTheCasesNotRun) {
  record.aborted = "the CUDA context was lost: cudaErrorIllegalAddress";
  const nlohmann::json j = report();
  EXPECT_EQ(j["schema_minor_version"], kReportSchemaMinorVersion);
  EXPECT_EQ(j["interrupted"], false);
  EXPECT_EQ(j["aborted"], record.aborted);
  ASSERT_EQ(j["not_run"].size(), record.cases.size() - 1);
  EXPECT_EQ(j["not_run"][0], record.cases[1].name());
  EXPECT_EQ(j["results"][1]["status"], "not_run");
  EXPECT_EQ(j["results"][1]["not_run_reason"], "the run was aborted");
  EXPECT_EQ(j["results"][0]["status"], "error");
  EXPECT_EQ(j["summary"]["not_run"], static_cast<int>(record.cases.size() - 1));
  EXPECT_EQ(j["summary"]["exit_status"], kExitDevice);
  nlohmann::json copy = j;
  require_readable_report(copy, "test");
  const std::string html = render_report_html(copy);
  EXPECT_NE(html.find("Partial report: the run was aborted: the CUDA context was lost"), std::string::npos);
  EXPECT_NE(html.find("<li>" + record.cases[1].name() + "</li>"), std::string::npos);
  EXPECT_NE(html.find("not run"), std::string::npos);
}

TEST_F(PartialReport, CompareWarnsThatASideIsPartial) {
  record.aborted = "the CUDA context was lost";
  const nlohmann::json partial = report();
  record.aborted.clear();
  for (auto& o : record.outcomes) o = CaseOutcome{};
  const nlohmann::json complete = report();
  const Comparison c = compare_reports(complete, partial, {});
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_EQ(c.warnings[0], "new is a partial report (aborted: the CUDA context was lost; " +
                               std::to_string(record.cases.size() - 1) + " case(s) not run, shown without timing)");
  EXPECT_TRUE(compare_reports(complete, complete, {}).warnings.empty());
}

TEST_F(PartialReport, InterruptedRunExitsOneThirtyAndSaysSo) {
  record.interrupted = true;
  const nlohmann::json j = report();
  EXPECT_EQ(j["interrupted"], true);
  EXPECT_TRUE(j["aborted"].is_null());
  EXPECT_EQ(j["summary"]["exit_status"], kExitInterrupted);
  EXPECT_NE(render_report_html(j).find("Partial report: the run was interrupted"), std::string::npos);
}

TEST_F(PartialReport, CompleteRunHasNoBanner) {
  for (auto& o : record.outcomes) o = CaseOutcome{};
  const nlohmann::json j = report();
  EXPECT_TRUE(j["not_run"].empty());
  EXPECT_EQ(render_report_html(j).find("Partial report"), std::string::npos);
}

TEST(PartialReportLoading, OlderMinorGetsTheNewFields) {
  nlohmann::json old = {{"schema", "normbench.report"}, {"schema_version", 1}, {"schema_minor_version", 2},
                        {"results", {{{"status", "ran"}}}}};
  fill_fields_of_newer_minors(old);
  EXPECT_EQ(old["interrupted"], false);
  EXPECT_TRUE(old["aborted"].is_null());
  EXPECT_TRUE(old["not_run"].is_array());
  EXPECT_TRUE(old["results"][0]["not_run_reason"].is_null());
}

TEST(PartialReportLoading, HostileNamesStayInert) {
  nlohmann::json r = {{"schema", "normbench.report"}, {"schema_version", 1}, {"interrupted", true},
                      {"aborted", "<script>alert(1)</script>"},
                      {"not_run", {"<img src=x onerror=alert(2)>"}},
                      {"provenance", {{"gpu", {{"name", "<b>gpu</b>"}}}}},
                      {"results", {{{"op", "<script>op</script>"}, {"variant", "\"><script>v</script>"},
                                    {"problem", "<p>"}, {"status", "not_run"}, {"not_run_reason", "<i>why</i>"}}}}};
  fill_fields_of_newer_minors(r);
  const std::string html = render_report_html(r);
  for (const char* raw : {"<script>alert", "<img src=x", "<script>op", "<script>v", "<i>why", "<b>gpu"})
    EXPECT_EQ(html.find(raw), std::string::npos) << raw;
}

}  // namespace
}  // namespace nb
