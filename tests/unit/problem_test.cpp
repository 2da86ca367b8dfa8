// Problems: ids are stable and parse back; bad parameters are usage errors with clear messages.
#include <gtest/gtest.h>

#include "harness/errors.hpp"
#include "harness/op_spec.hpp"
#include "test_op.hpp"

namespace nb {
namespace {

using TestOp = test::CopyOp;

TEST(Problem, IdListsRequiredAndNonDefaultParams) {
  TestOp op;
  EXPECT_EQ(op.make_problem({{"n", 64}}).id(), "copy_op/n64/fp32");
  EXPECT_EQ(op.make_problem({{"n", 64}, {"g", 8}, {"eps", 1e-6}}).id(), "copy_op/n64_g8_eps1e-06/fp32");
}

TEST(Problem, IdParsesBackToTheSameProblem) {
  TestOp op;
  for (const char* id : {"copy_op/n64/fp32", "copy_op/n64_g8_eps1e-06/fp32", "n48_g4"}) {
    Problem p = op.parse_problem_id(id);
    EXPECT_EQ(op.parse_problem_id(p.id()).id(), p.id());
  }
  EXPECT_DOUBLE_EQ(op.parse_problem_id("copy_op/n64_g8_eps1e-06/fp32").real("eps"), 1e-6);
}

TEST(Problem, BadParametersAreUsageErrorsThatSayWhy) {
  TestOp op;
  auto message = [&](const Params& p) {
    try {
      op.make_problem(p);
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message({}).find("'n' is required"), std::string::npos);
  EXPECT_NE(message({{"n", 0}}).find("out of range"), std::string::npos);
  EXPECT_NE(message({{"n", 2.5}}).find("must be an integer"), std::string::npos);
  EXPECT_NE(message({{"n", 64}, {"q", 1}}).find("unknown parameter 'q'"), std::string::npos);
  EXPECT_NE(message({{"n", 10}, {"g", 4}}).find("divisible"), std::string::npos);
  EXPECT_THROW(op.parse_problem_id("copy_op/64/fp32"), UsageError);
  EXPECT_THROW(op.parse_problem_id("copy_op/n64/fp16"), UsageError);
  EXPECT_THROW(Params::parse("n=abc"), UsageError);
  EXPECT_THROW(Params::parse("n"), UsageError);
}

TEST(Problem, SuitesSelectTheirNamedProblems) {
  TestOp op;
  ASSERT_EQ(op.problems_in("kb").size(), 1u);
  EXPECT_EQ(op.problems_in("kb")[0].id(), "copy_op/n4096_g8/fp32");
  EXPECT_EQ(op.problems_in("").size(), 2u);
  EXPECT_TRUE(op.problems_in("llm").empty());
}

}  // namespace
}  // namespace nb
