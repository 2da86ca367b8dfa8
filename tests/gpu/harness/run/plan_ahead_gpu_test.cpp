// The cuDNN plans built ahead on host threads (harness/run/plan_ahead.hpp) on the GPU: a run of the
// cudnn variant over row-norm problems in a fresh plan cache plans every case on the threads or
// takes it back, fails none, loads each plan planned ahead as a hit in the case's own prepare(),
// and reaches the same verdicts as a run that builds every plan in its problem's turn (the second
// run, in the same process, keeps the variant's plans in memory: the same plans, judged again).
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "gpu_harness.hpp"
#include "harness/run/runner.hpp"

namespace nb::test {
namespace {

namespace fs = std::filesystem;

struct TempPlanCache {
  fs::path path = fs::temp_directory_path() / ("normbench-plans-ahead-" + std::to_string(::getpid()));
  TempPlanCache() { fs::remove_all(path); }
  ~TempPlanCache() { fs::remove_all(path); }
};

RunOptions validate_only(const fs::path& cache, int plan_threads) {
  RunOptions o = validate_only_options(Distribution::normal);
  o.plan_cache = {cache.string(), "--plan-cache"};
  o.plan_threads = plan_threads;
  return o;
}

std::vector<RunCase> cudnn_cases(const std::string& op_name) {
  const OpSpec& op = registry().op(op_name);
  Variant* cudnn = op.find_variant("cudnn");
  std::vector<RunCase> cases;
  if (!cudnn) return cases;
  for (const auto& [m, n] : {std::pair{7, 1000}, {5, 4097}, {6, 8200}, {3, 2048}, {64, 512}, {9, 33}})
    for (DType dtype : {DType::f32, DType::bf16}) cases.push_back({&op, cudnn, op.make_problem({{"m", m}, {"n", n}}, dtype), {}});
  return cases;
}

TEST(PlanAheadOnTheGpu, EveryPlanIsBuiltAheadOrTakenBackAndTheVerdictsAreThoseOfBuildingInTurn) {
  for (const std::string op : {"rmsnorm_rows", "layernorm_rows_bwd"}) {
    SCOPED_TRACE(op);
    const std::vector<RunCase> cases = cudnn_cases(op);
    ASSERT_FALSE(cases.empty()) << op << " has no cudnn variant";
    TempPlanCache ahead_cache, in_turn_cache;
    const RunRecord ahead = run_cases(cases, validate_only(ahead_cache.path, 4));
    const RunRecord in_turn = run_cases(cases, validate_only(in_turn_cache.path, 0));

    const PlanAheadStats& a = ahead.phases.plans_ahead;
    const auto refused = std::count_if(in_turn.outcomes.begin(), in_turn.outcomes.end(),
                                       [](const CaseOutcome& o) { return o.status == CaseStatus::skipped; });
    EXPECT_EQ(a.threads, 4);
    EXPECT_EQ(a.tasks, int(cases.size()));
    EXPECT_LE(a.failed, refused) << "a plan failed on a thread that its case's own prepare() built";
    EXPECT_EQ(a.planned + a.taken_back + a.failed, a.tasks);
    EXPECT_GT(a.planned, 0) << "the validation took every task back: nothing was built ahead";
    const PhaseTotals t = ahead.phase_totals();
    EXPECT_GE(t.plan_hits, a.planned) << "a plan built ahead is loaded by its case's prepare()";
    EXPECT_EQ(in_turn.phases.plans_ahead.threads, 0);
    EXPECT_EQ(in_turn.phases.plans_ahead.tasks, 0) << "--plan-threads 0 queues nothing";

    ASSERT_EQ(ahead.outcomes.size(), in_turn.outcomes.size());
    for (std::size_t i = 0; i < cases.size(); ++i) {
      SCOPED_TRACE(cases[i].problem.id());
      EXPECT_EQ(ahead.outcomes[i].status, in_turn.outcomes[i].status) << ahead.outcomes[i].reason;
      EXPECT_EQ(ahead.outcomes[i].validation.disposition, in_turn.outcomes[i].validation.disposition);
    }
  }
}

}  // namespace
}  // namespace nb::test
