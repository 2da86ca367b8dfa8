// The slowest problems and cases printed after a run's phase breakdown: longest first, at most
// `count` of each, a problem's seconds its own phases plus its cases', nothing when nothing was timed.
#include "harness/cli/slowest.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "harness/run/runner.hpp"
#include "test_op.hpp"

namespace nb {
namespace {

// Three problems of the copy op, each with its naive and fast case; the naive ones slow.
RunRecord three_problems(const test::CopyOp& op) {
  RunRecord r;
  const double naive[] = {1.0, 9.0, 4.0};
  for (int i = 0; i < 3; ++i) {
    const Problem problem = op.make_problem({{"n", double(1000 * (i + 1))}});
    ProblemPhases& phases = r.phases_of(problem.id());
    phases.prepare_s = 0.5, phases.reference_s = 0.25, phases.audit_wait_s = 0.25;
    for (const char* variant : {"naive", "fast"}) {
      r.cases.push_back({&op, op.find_variant(variant), problem, {"quick"}});
      CaseOutcome outcome;
      const double seconds = std::string(variant) == "naive" ? naive[i] : 0.1;
      outcome.phases.add_validation(Distribution::normal, seconds / 2);
      outcome.phases.add_validation(Distribution::offset, seconds / 4);
      outcome.phases.timing_s = seconds / 4;
      r.outcomes.push_back(outcome);
    }
  }
  return r;
}

TEST(Slowest, ProblemsAndCasesLongestFirstAtMostCountOfEach) {
  const test::CopyOp op;
  const RunRecord r = three_problems(op);
  std::ostringstream printed;
  print_slowest(r, printed, 2);
  const std::string text = printed.str();
  // n=2000: 9.0 + 0.1 of cases and 1.0 of its own; n=3000: 4.0 + 0.1 + 1.0.
  const auto first = text.find("10.10 s  copy_op/n2000/fp32: its cases 9.10; prepare 0.50, draw 0.00, reference 0.25, "
                               "audit 0.25 (wait 0.25)");
  const auto second = text.find("5.10 s  copy_op/n3000/fp32: its cases 4.10");
  ASSERT_NE(first, std::string::npos) << text;
  ASSERT_NE(second, std::string::npos) << text;
  EXPECT_LT(first, second);
  EXPECT_EQ(text.find("copy_op/n1000/fp32: its cases"), std::string::npos) << "two problems at most\n" << text;
  const auto slowest_case = text.find("9.00 s  copy_op/n2000/fp32 naive: validation 6.75 (2 distributions), timing 2.25");
  const auto next_case = text.find("4.00 s  copy_op/n3000/fp32 naive");
  ASSERT_NE(slowest_case, std::string::npos) << text;
  ASSERT_NE(next_case, std::string::npos) << text;
  EXPECT_LT(slowest_case, next_case);
  EXPECT_EQ(text.find(" fast: "), std::string::npos) << "two cases at most\n" << text;
}

TEST(Slowest, NothingTimedPrintsNothing) {
  const RunRecord nothing_timed;
  std::ostringstream printed;
  print_slowest(nothing_timed, printed);
  EXPECT_EQ(printed.str(), "");
}

}  // namespace
}  // namespace nb
