// The run's exit status: any case not passed sets it, but a library baseline whose only failure is
// where NaN and Inf land on the special or wide inputs (cuDNN's batchnorm_train running variance on
// wide) does not; a library that is wrong in any other way, or our own variant misplacing NaN/Inf,
// still does.
#include <gtest/gtest.h>

#include "harness/errors.hpp"
#include "harness/report/case_metrics.hpp"
#include "test_op.hpp"

namespace nb {
namespace {

constexpr int kFast = 1, kLibrary = 2;  // test::CopyOp's variants: naive, fast (ours), library (cublas)

class RunExitStatus : public testing::Test {
 protected:
  void SetUp() override {
    const Problem p = op.make_problem({{"n", 1 << 12}});
    for (const auto& v : op.variants()) record.cases.push_back({&op, v.get(), p, {"quick"}});
    record.outcomes.resize(record.cases.size());
    for (auto& o : record.outcomes) {
      o.status = CaseStatus::ran;
      for (Distribution d : {Distribution::uniform01, Distribution::wide, Distribution::special}) {
        DistributionVerdict v;
        v.distribution = d;
        v.seeds = {1000};
        o.validation.distributions.push_back(v);
      }
      o.validation.conclude();
    }
  }

  // Distribution `which` of case `k` failed with NaN/Inf out of place (and, if asked, a numeric error).
  void misplace_nonfinite(int k, std::size_t which, bool numeric = false) {
    DistributionVerdict& d = record.outcomes[std::size_t(k)].validation.distributions[which];
    d.passed = false;
    d.hard_failed = true;
    d.nonfinite_mismatch = 3;
    d.numeric_failed = numeric;
    d.failure = "running_var: 3 NaN/Inf out of place";
    record.outcomes[std::size_t(k)].validation.conclude();
  }

  int status() { return run_exit_status(record, compute_metrics(record)); }

  test::CopyOp op;
  RunRecord record;
};

TEST_F(RunExitStatus, EveryCasePassedIsZero) { EXPECT_EQ(status(), kExitOk); }

TEST_F(RunExitStatus, ALibraryMisplacingNonFiniteOnWideOrSpecialLeavesItZero) {
  misplace_nonfinite(kLibrary, 1);  // wide
  misplace_nonfinite(kLibrary, 2);  // special
  ASSERT_EQ(record.outcomes[kLibrary].validation.disposition, Disposition::incorrect);
  EXPECT_TRUE(library_misplaces_nonfinite_only(*record.cases[kLibrary].variant, record.outcomes[kLibrary]));
  EXPECT_EQ(status(), kExitOk);
}

// As cuDNN's batchnorm_train at (1024, 8192) on the H100 (kb report 20261126T063321Z-gpu0): NaN/Inf
// out of place on wide, and a numeric excess on tiny_var, a stress distribution there.
TEST_F(RunExitStatus, AStressDistributionsNumericExcessBesideItLeavesItZero) {
  misplace_nonfinite(kLibrary, 1);
  DistributionVerdict& tiny_var = record.outcomes[kLibrary].validation.distributions[0];
  tiny_var.distribution = Distribution::tiny_var;
  tiny_var.counts = false;
  tiny_var.passed = false;
  tiny_var.numeric_failed = true;
  record.outcomes[kLibrary].validation.conclude();
  EXPECT_EQ(status(), kExitOk);
  tiny_var.counts = true;  // the same excess where the bound counts is a failure
  record.outcomes[kLibrary].validation.conclude();
  EXPECT_EQ(status(), kExitVerdictFailed);
}

TEST_F(RunExitStatus, ALibraryWrongOnOrdinaryDataSetsIt) {
  misplace_nonfinite(kLibrary, 0);  // uniform01
  EXPECT_FALSE(library_misplaces_nonfinite_only(*record.cases[kLibrary].variant, record.outcomes[kLibrary]));
  EXPECT_EQ(status(), kExitVerdictFailed);
}

TEST_F(RunExitStatus, ALibraryWithACountedNumericFailureOnWideSetsIt) {
  misplace_nonfinite(kLibrary, 1, true);
  EXPECT_EQ(status(), kExitVerdictFailed);
}

TEST_F(RunExitStatus, ALibraryThatLeavesElementsUnwrittenSetsIt) {
  misplace_nonfinite(kLibrary, 1);
  record.outcomes[kLibrary].validation.distributions[1].unwritten = 5;
  EXPECT_EQ(status(), kExitVerdictFailed);
}

TEST_F(RunExitStatus, OurOwnVariantMisplacingNonFiniteSetsIt) {
  misplace_nonfinite(kFast, 1);
  EXPECT_FALSE(library_misplaces_nonfinite_only(*record.cases[kFast].variant, record.outcomes[kFast]));
  EXPECT_EQ(status(), kExitVerdictFailed);
}

}  // namespace
}  // namespace nb
