// The library plans in the phase times: the runner hands the plan cache setting to the variants
// that take one and collects the plans their prepare() made; the totals count hits and misses;
// report.json carries them (schema minor 5) and the page lists them; compare ignores them.
#include <gtest/gtest.h>

#include "harness/report/page/html_report.hpp"
#include "harness/report/json/phases_json.hpp"
#include "harness/report/report_loading.hpp"
#include "harness/run/guarded_launch.hpp"
#include "report_test_support.hpp"

namespace nb {
namespace {

PlanEvent event(PlanSource source, double seconds, const std::string& plan = "rms_forward M=1 N=524288 fp16") {
  PlanEvent e;
  e.plan = plan, e.source = source, e.seconds = seconds, e.runtime_compiled = source != PlanSource::refused;
  e.status = "ok (engine 5, notes runtime_compilation)";
  return e;
}

// A variant whose prepare() makes one plan, and that remembers the setting it was given.
class PlanningVariant final : public Variant, public UsesPlanCache {
 public:
  explicit PlanningVariant(bool supported) : supported_(supported) {}
  std::string name() const override { return "cudnn"; }
  std::string kind() const override { return "cudnn"; }
  std::string idea() const override { return "plans in prepare"; }
  Support supports(const Problem&) const override { return supported_ ? Support::yes() : Support::no("refused"); }
  void prepare(const Problem&) override { events_.push_back(event(PlanSource::built, 2.5)); }
  void launch(const Problem&, const DeviceTensors&, void*, cudaStream_t) override {}
  void use_plan_cache(const PlanCacheSetting& s) override { setting = s; }
  std::vector<PlanEvent> take_plan_events() override { return std::exchange(events_, {}); }
  void open_library() override {}
  std::unique_ptr<UsesPlanCache> planning_twin() const override { return std::make_unique<PlanningVariant>(supported_); }
  void plan_only(const Problem& p) override { prepare(p); }

  PlanCacheSetting setting;

 private:
  bool supported_;
  std::vector<PlanEvent> events_;
};

class PlainVariant final : public Variant {
 public:
  std::string name() const override { return "naive"; }
  std::string kind() const override { return "naive"; }
  std::string idea() const override { return "no plans"; }
  void launch(const Problem&, const DeviceTensors&, void*, cudaStream_t) override {}
};

TEST(PlanEvents, PrepareGivesTheSettingAndCollectsEachVariantsPlansByName) {
  PlanningVariant planner(true), refused(false);
  PlainVariant plain;
  std::vector<CaseOutcome> outcomes(3);
  const PlanCacheSetting setting{"/cache/plans", "--plan-cache"};
  Problem p;
  p.op = "rmsnorm_rows";
  const std::vector<PlanEvent> plans = prepare_variants(p, {&planner, &plain, &refused}, outcomes, setting);
  EXPECT_EQ(planner.setting, setting);
  EXPECT_EQ(refused.setting, setting);
  ASSERT_EQ(plans.size(), 1u) << "the refused variant was not prepared";
  EXPECT_EQ(plans[0].variant, "cudnn");
  EXPECT_EQ(plans[0].source, PlanSource::built);
  EXPECT_EQ(outcomes[2].status, CaseStatus::skipped);
  EXPECT_TRUE(planner.take_plan_events().empty()) << "the runner took them";
}

ProblemPhases problem_with_plans() {
  ProblemPhases p;
  p.problem = "rmsnorm_rows/m1_n524288/fp16";
  p.reference = "device";
  p.prepare_s = 30;
  p.plans = {event(PlanSource::built, 27), event(PlanSource::loaded, 0.25), event(PlanSource::refused, 1.5)};
  for (PlanEvent& e : p.plans) e.variant = "cudnn";
  return p;
}

TEST(PlanEvents, TotalsCountHitsAndMissesWithTheirSeconds) {
  const PhaseTotals t = sum_phases({}, {problem_with_plans(), problem_with_plans()}, {});
  EXPECT_EQ(t.plan_hits, 2);
  EXPECT_EQ(t.plan_misses, 4) << "built and refused plans are both misses";
  EXPECT_DOUBLE_EQ(t.plan_build, 2 * (27 + 1.5));
  EXPECT_DOUBLE_EQ(t.plan_load, 0.5);
  EXPECT_DOUBLE_EQ(t.prepare, 60) << "the plans' seconds are part of prepare, not beside it";
}

TEST(PlanEvents, ReportJsonCarriesEachPlanAndTheTotals) {
  const std::vector<ProblemPhases> problems = {problem_with_plans()};
  const nlohmann::json j =
      nlohmann::json::parse(run_phases_json({}, sum_phases({}, problems, {}), problems).dump());
  EXPECT_DOUBLE_EQ(j.at("validation").at("plan_build_s").get<double>(), 28.5);
  EXPECT_DOUBLE_EQ(j.at("validation").at("plan_load_s").get<double>(), 0.25);
  EXPECT_EQ(j.at("validation").at("plan_cache_hits"), 1);
  EXPECT_EQ(j.at("validation").at("plan_cache_misses"), 2);
  const nlohmann::json& plan = j.at("problems").at(0).at("plans").at(1);
  EXPECT_EQ(plan.at("variant"), "cudnn");
  EXPECT_EQ(plan.at("plan"), "rms_forward M=1 N=524288 fp16");
  EXPECT_EQ(plan.at("source"), "loaded");
  EXPECT_DOUBLE_EQ(plan.at("seconds").get<double>(), 0.25);
  EXPECT_EQ(plan.at("runtime_compiled"), true);
  EXPECT_EQ(plan.at("status"), "ok (engine 5, notes runtime_compilation)");
}

TEST(PlanEvents, TheReportPageListsThePlansSlowestFirst) {
  nlohmann::json report = test::load_fixture("report_fixture.json");
  const std::vector<ProblemPhases> problems = {problem_with_plans()};
  RunPhases run;
  run.total_s = 40, run.validation_s = 35;
  report["phases"] = nlohmann::json::parse(run_phases_json(run, sum_phases(run, problems, {}), problems).dump());
  report["settings"]["plan_cache"] = {{"folder", "/cache/plans"}, {"origin", "--plan-cache"}};
  const std::string html = render_report_html(report);
  EXPECT_NE(html.find("library plans built or refused (plan cache misses)"), std::string::npos);
  EXPECT_NE(html.find(">28.50<"), std::string::npos) << "the build seconds in the breakdown";
  EXPECT_NE(html.find("library plans: 2 built or refused in 28.50 s, 1 loaded from the plan cache in 0.25 s; "
                      "plan cache: /cache/plans (--plan-cache)"),
            std::string::npos);
  const std::size_t built = html.find(">27.000<"), refused = html.find(">1.500<"), loaded = html.find(">0.250<");
  ASSERT_NE(built, std::string::npos);
  ASSERT_NE(refused, std::string::npos);
  ASSERT_NE(loaded, std::string::npos);
  EXPECT_LT(built, refused);
  EXPECT_LT(refused, loaded);
}

TEST(PlanEvents, AReportOfMinorFourLoadsWithoutAPlanCacheAndShowsNoPlans) {
  nlohmann::json report = test::load_fixture("report_fixture.json");
  report["settings"].erase("plan_cache");
  report["schema_minor_version"] = 4;
  fill_fields_of_newer_minors(report);
  EXPECT_TRUE(report.at("settings").at("plan_cache").is_null());
  EXPECT_EQ(render_report_html(report).find("library plans:"), std::string::npos);
}

}  // namespace
}  // namespace nb
