// The library plans built ahead on host threads (harness/run/plan_ahead.hpp), with planners that
// record where and what they planned: every task is planned once or taken back, never both; a
// task being built is waited for; a failing task or a thread that cannot reach the device only
// leaves its cases to prepare(); the variant's own library opens on the validation's thread first;
// the twins are one per variant and thread, with the run's setting; and the stats reach the
// report's phases, the page and the printed breakdown.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "harness/cli/summary_table.hpp"
#include "harness/report/json/phases_json.hpp"
#include "harness/report/page/html_report.hpp"
#include "harness/run/plan_ahead.hpp"
#include "report_test_support.hpp"

namespace nb {
namespace {

using namespace std::chrono_literals;

// What the planners did, shared by a variant and its twins.
struct PlanLog {
  std::mutex mutex;
  std::vector<std::pair<std::string, std::thread::id>> planned;  // problem id, thread
  int twins = 0;
  std::vector<PlanCacheSetting> settings;  // each twin's
  std::vector<std::thread::id> opened_on;  // open_library()'s threads
  bool library_missing = false;            // open_library() throws

  std::vector<std::string> problems() {
    std::lock_guard<std::mutex> lock(mutex);
    std::vector<std::string> ids;
    for (const auto& p : planned) ids.push_back(p.first);
    return ids;
  }
};

class RecordingPlanner final : public UsesPlanCache {
 public:
  using Work = std::function<void(const Problem&)>;  // runs before the plan is recorded; may throw
  RecordingPlanner(PlanLog& log, Work work) : log_(log), work_(std::move(work)) {}

  void use_plan_cache(const PlanCacheSetting& s) override {
    std::lock_guard<std::mutex> lock(log_.mutex);
    log_.settings.push_back(s);
  }
  std::vector<PlanEvent> take_plan_events() override { return {}; }
  void open_library() override {
    std::lock_guard<std::mutex> lock(log_.mutex);
    log_.opened_on.push_back(std::this_thread::get_id());
    if (log_.library_missing) throw std::runtime_error("CUDNN_STATUS_NOT_INITIALIZED");
  }
  std::unique_ptr<UsesPlanCache> planning_twin() const override {
    std::lock_guard<std::mutex> lock(log_.mutex);
    ++log_.twins;
    return std::make_unique<RecordingPlanner>(log_, work_);
  }
  void plan_only(const Problem& p) override {
    if (work_) work_(p);
    std::lock_guard<std::mutex> lock(log_.mutex);
    log_.planned.emplace_back(p.id(), std::this_thread::get_id());
  }

 private:
  PlanLog& log_;
  Work work_;
};

std::vector<Problem> problems(int count) {
  std::vector<Problem> ps;
  for (int i = 0; i < count; ++i) ps.push_back(Problem{"rmsnorm_rows", "m" + std::to_string(i + 1) + "_n8", {}, DType::f32});
  return ps;
}

std::vector<PlanAheadTask> tasks_of(const std::vector<Problem>& ps, UsesPlanCache& variant) {
  std::vector<PlanAheadTask> tasks;
  for (const Problem& p : ps) tasks.push_back({&p, &variant, "cudnn"});
  return tasks;
}

const PlanCacheSetting kSetting{"/cache/plans", "--plan-cache"};
const PlanAhead::ThreadSetup kOnTheDevice = [] { return true; };

// A gate a planner stops at until the test opens it, telling when the first one has arrived.
struct Gate {
  std::mutex mutex;
  std::condition_variable changed;
  bool open = false, reached = false;

  void pass() {
    std::unique_lock<std::mutex> lock(mutex);
    reached = true;
    changed.notify_all();
    changed.wait(lock, [this] { return open; });
  }
  void await_arrival() {
    std::unique_lock<std::mutex> lock(mutex);
    changed.wait(lock, [this] { return reached; });
  }
  void release() {
    std::lock_guard<std::mutex> lock(mutex);
    open = true;
    changed.notify_all();
  }
};

TEST(PlanAhead, DefaultThreadsAreTheCoresLessTwoAtMostSixteenAndNoMoreThanTheTasks) {
  EXPECT_EQ(default_plan_threads(16, 250), 14);
  EXPECT_EQ(default_plan_threads(128, 250), 16);
  EXPECT_EQ(default_plan_threads(2, 250), 1);
  EXPECT_EQ(default_plan_threads(0, 250), 1) << "an unknown core count still plans on one thread";
  EXPECT_EQ(default_plan_threads(16, 3), 3);
  EXPECT_EQ(default_plan_threads(16, 0), 0);
}

TEST(PlanAhead, EveryTaskIsPlannedOnTheThreadsWhenTheValidationComesLater) {
  PlanLog log;
  RecordingPlanner variant(log, [](const Problem&) { std::this_thread::sleep_for(5ms); });
  const std::vector<Problem> ps = problems(24);
  PlanAhead ahead(tasks_of(ps, variant), kSetting, 4, kOnTheDevice);
  std::this_thread::sleep_for(400ms);  // 24 x 5 ms on 4 threads: done long before
  for (const Problem& p : ps) ahead.wait(p.id(), "cudnn");
  const PlanAheadStats stats = ahead.finish();
  EXPECT_EQ(stats.threads, 4);
  EXPECT_EQ(stats.tasks, 24);
  EXPECT_EQ(stats.planned, 24);
  EXPECT_EQ(stats.taken_back, 0);
  EXPECT_EQ(stats.failed, 0);
  EXPECT_GE(stats.busy_s, 24 * 0.005 * 0.9);
  EXPECT_GT(stats.wall_s, 0);
  EXPECT_LT(stats.wall_s, stats.busy_s) << "the threads planned side by side";
  const std::vector<std::string> planned = log.problems();
  EXPECT_EQ(std::set<std::string>(planned.begin(), planned.end()).size(), 24u);
  EXPECT_EQ(planned.size(), 24u) << "each task once";
  std::set<std::thread::id> threads;
  for (const auto& p : log.planned) threads.insert(p.second);
  EXPECT_GE(threads.size(), 2u);
  EXPECT_EQ(threads.count(std::this_thread::get_id()), 0u) << "nothing planned on the validation's thread";
  EXPECT_LE(log.twins, 4) << "one twin per variant and thread";
  ASSERT_EQ(log.opened_on.size(), 1u) << "the variant's own library opened once, before the threads";
  EXPECT_EQ(log.opened_on[0], std::this_thread::get_id());
  ASSERT_FALSE(log.settings.empty());
  for (const PlanCacheSetting& s : log.settings) EXPECT_EQ(s, kSetting);
}

TEST(PlanAhead, ATaskBeingBuiltIsWaitedForAndOneNotStartedIsTakenBackAndNeverBuilt) {
  PlanLog log;
  Gate gate;
  const std::vector<Problem> ps = problems(3);
  const std::string first = ps[0].id();
  RecordingPlanner variant(log, [&](const Problem& p) {
    if (p.id() == first) gate.pass();
  });
  PlanAhead ahead(tasks_of(ps, variant), kSetting, 1, kOnTheDevice);
  gate.await_arrival();  // the one thread is inside the first task
  ahead.wait(ps[2].id(), "cudnn");  // queued behind it: taken back at once
  std::thread opener([&gate] {
    std::this_thread::sleep_for(50ms);
    gate.release();
  });
  const auto before = std::chrono::steady_clock::now();
  ahead.wait(first, "cudnn");  // running: waited for
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - before).count();
  opener.join();
  EXPECT_GE(waited, 0.04);
  EXPECT_EQ(log.problems().front(), first) << "wait() returned after the plan was made";
  const PlanAheadStats stats = ahead.finish();
  EXPECT_EQ(stats.taken_back, 1);
  EXPECT_GE(stats.waited_s, 0.04);
  for (const std::string& id : log.problems()) EXPECT_NE(id, ps[2].id()) << "a task taken back was built";
  EXPECT_EQ(stats.failed, 0);
  EXPECT_TRUE(stats.planned == 1 || stats.planned == 2)
      << stats.planned << ": the second task is planned, or was not started when finish() stopped the thread";
}

TEST(PlanAhead, AProblemIsReadyOnceEachOfItsTasksIsSettledAndTheValidationCanWaitForAny) {
  PlanLog log;
  Gate gate;
  const std::vector<Problem> ps = problems(3);
  RecordingPlanner variant(log, [&](const Problem& p) {
    if (p.id() == ps[0].id()) gate.pass();
  });
  PlanAhead ahead(tasks_of(ps, variant), kSetting, 1, kOnTheDevice);
  gate.await_arrival();
  EXPECT_FALSE(ahead.ready(ps[0].id())) << "being built";
  EXPECT_FALSE(ahead.ready(ps[2].id())) << "queued";
  EXPECT_TRUE(ahead.ready("softmax/m1_n8/fp32")) << "no task at all";
  std::thread opener([&gate] {
    std::this_thread::sleep_for(50ms);
    gate.release();
  });
  EXPECT_TRUE(ahead.wait_for_any()) << "a task was being built";
  opener.join();
  EXPECT_TRUE(ahead.ready(ps[0].id())) << "built";
  ahead.wait(ps[2].id(), "cudnn");  // taken back, or waited for if the thread took it meanwhile
  EXPECT_TRUE(ahead.ready(ps[2].id()));
  const PlanAheadStats stats = ahead.finish();
  EXPECT_GE(stats.waited_s, 0.04) << "wait_for_any's seconds count as waited";
  EXPECT_FALSE(ahead.wait_for_any()) << "nothing is being built after finish()";
}

TEST(PlanAhead, AFailingTaskIsCountedAndTheOthersArePlanned) {
  PlanLog log;
  const std::vector<Problem> ps = problems(6);
  const std::string bad = ps[3].id();
  RecordingPlanner variant(log, [&bad](const Problem& p) {
    if (p.id() == bad) throw std::runtime_error("CUDNN_STATUS_NOT_SUPPORTED");
  });
  PlanAhead ahead(tasks_of(ps, variant), kSetting, 2, kOnTheDevice);
  std::this_thread::sleep_for(200ms);
  for (const Problem& p : ps) ahead.wait(p.id(), "cudnn");
  const PlanAheadStats stats = ahead.finish();
  EXPECT_EQ(stats.failed, 1);
  EXPECT_EQ(stats.planned, 5);
  EXPECT_EQ(log.problems().size(), 5u);
}

TEST(PlanAhead, ThreadsThatCannotReachTheDeviceLeaveEveryTaskToTheValidation) {
  PlanLog log;
  RecordingPlanner variant(log, {});
  const std::vector<Problem> ps = problems(5);
  PlanAhead ahead(tasks_of(ps, variant), kSetting, 3, [] { return false; });
  std::this_thread::sleep_for(50ms);
  for (const Problem& p : ps) ahead.wait(p.id(), "cudnn");
  const PlanAheadStats stats = ahead.finish();
  EXPECT_EQ(stats.planned, 0);
  EXPECT_EQ(stats.taken_back, 5);
  EXPECT_TRUE(log.problems().empty());
  EXPECT_EQ(log.twins, 0);
}

TEST(PlanAhead, ALibraryThatDoesNotOpenStartsNoThreads) {
  PlanLog log;
  log.library_missing = true;
  RecordingPlanner variant(log, {});
  const std::vector<Problem> ps = problems(3);
  PlanAhead ahead(tasks_of(ps, variant), kSetting, 2, kOnTheDevice);
  for (const Problem& p : ps) ahead.wait(p.id(), "cudnn");
  const PlanAheadStats stats = ahead.finish();
  EXPECT_EQ(stats.threads, 0);
  EXPECT_EQ(stats.taken_back, 3);
  EXPECT_EQ(log.twins, 0);
}

TEST(PlanAhead, NoThreadsOrNoTasksPlanNothingAndACaseWithoutATaskIsNotWaitedFor) {
  PlanLog log;
  RecordingPlanner variant(log, {});
  const std::vector<Problem> ps = problems(2);
  PlanAhead none(tasks_of(ps, variant), kSetting, 0, kOnTheDevice);
  none.wait(ps[0].id(), "cudnn");
  none.wait("softmax/m1_n1/fp32", "cudnn");  // no such task: returns at once
  none.wait(ps[1].id(), "warp");
  const PlanAheadStats stats = none.finish();
  EXPECT_EQ(stats.threads, 0);
  EXPECT_EQ(stats.tasks, 2);
  EXPECT_EQ(stats.taken_back, 1);
  EXPECT_TRUE(log.problems().empty());
  PlanAhead empty({}, kSetting, 4, kOnTheDevice);
  EXPECT_EQ(empty.finish().threads, 0);
}

PlanAheadStats some_stats() {
  PlanAheadStats a;
  a.threads = 14, a.tasks = 249, a.planned = 240, a.failed = 2, a.taken_back = 7;
  a.wall_s = 11.5, a.busy_s = 139.0, a.waited_s = 3.25;
  return a;
}

TEST(PlanAhead, TheStatsReachTheReportThePageAndThePrintedBreakdown) {
  RunPhases run;
  run.total_s = 60, run.validation_s = 50;
  run.plans_ahead = some_stats();
  const PhaseTotals totals = sum_phases(run, {}, {});
  const nlohmann::json j = nlohmann::json::parse(run_phases_json(run, totals, {}).dump());
  const nlohmann::json& a = j.at("validation").at("plans_ahead");
  EXPECT_EQ(a.at("threads"), 14);
  EXPECT_EQ(a.at("tasks"), 249);
  EXPECT_EQ(a.at("planned"), 240);
  EXPECT_EQ(a.at("failed"), 2);
  EXPECT_EQ(a.at("taken_back"), 7);
  EXPECT_DOUBLE_EQ(a.at("wall_s").get<double>(), 11.5);
  EXPECT_DOUBLE_EQ(a.at("busy_s").get<double>(), 139.0);
  EXPECT_DOUBLE_EQ(a.at("waited_s").get<double>(), 3.25);

  std::ostringstream printed;
  print_phase_breakdown(totals, printed);
  EXPECT_NE(printed.str().find("library plans built ahead beside it: 240 of 249 on 14 threads in 11.5 s (busy 139.0 s; "
                               "prepare waited 3.2 s for them; 7 taken back, 2 failed)"),
            std::string::npos)
      << printed.str();

  nlohmann::json report = test::load_fixture("report_fixture.json");
  ProblemPhases problem;
  problem.problem = "rmsnorm_rows/m1_n8/fp32";
  PlanEvent loaded;
  loaded.variant = "cudnn", loaded.plan = "rms_forward M=1 N=8 fp32", loaded.source = PlanSource::loaded;
  problem.plans = {loaded};
  report["phases"] = nlohmann::json::parse(run_phases_json(run, sum_phases(run, {problem}, {}), {problem}).dump());
  const std::string html = render_report_html(report);
  EXPECT_NE(html.find("the wait for plans being built ahead on host threads"), std::string::npos);
  EXPECT_NE(html.find("built ahead beside the validation: 240 of 249 on 14 threads in 11.50 s (7 taken back, 2 failed)"),
            std::string::npos);
}

TEST(PlanAhead, ARunWithoutTasksPrintsNoLineForThem) {
  std::ostringstream printed;
  print_phase_breakdown(sum_phases({}, {}, {}), printed);
  EXPECT_EQ(printed.str().find("built ahead"), std::string::npos);
}

}  // namespace
}  // namespace nb
