// Problems: ids are stable and parse back; bad parameters are usage errors with clear messages.
#include <gtest/gtest.h>

#include "harness/errors.hpp"
#include "harness/op_spec.hpp"

namespace nb {
namespace {

// A minimal op to exercise the engine's parameter handling without any kernel.
class TestOp final : public OpSpec {
 public:
  std::string name() const override { return "test_op"; }
  std::string formula() const override { return "y = x"; }
  std::vector<ParamDecl> param_decls() const override {
    return {{"n", true, 0, true, 1, 1e9, "rows"},
            {"g", true, 1, false, 1, 1e6, "groups"},
            {"eps", false, 1e-5, false, 0, 1, "epsilon"}};
  }
  std::string check(const Params& p) const override {
    return p.dim("n") % p.dim("g") ? "n must be divisible by g" : "";
  }
  std::vector<NamedProblem> named_problems() const override {
    return {{{{"n", 64}}, {"quick"}, "small"}, {{{"n", 4096}, {"g", 8}}, {"kb", "sweep"}, "large"}};
  }
  std::vector<TensorDecl> tensors(const Problem& p) const override {
    return {{"x", TensorRole::input, p.dim("n")}, {"y", TensorRole::output, p.dim("n")}};
  }
  void draw_inputs(const Problem&, Distribution, std::uint64_t, HostTensors&) const override {}
  void reference(const Problem&, const HostTensors&, ReferenceTensors&) const override {}
  WorkModel work(const Problem& p) const override { return {8.0 * p.dim("n"), 0, "read x + write y"}; }
};

TEST(Problem, IdListsRequiredAndNonDefaultParams) {
  TestOp op;
  EXPECT_EQ(op.make_problem({{"n", 64}}).id(), "test_op/n64/fp32");
  EXPECT_EQ(op.make_problem({{"n", 64}, {"g", 8}, {"eps", 1e-6}}).id(), "test_op/n64_g8_eps1e-06/fp32");
}

TEST(Problem, IdParsesBackToTheSameProblem) {
  TestOp op;
  for (const char* id : {"test_op/n64/fp32", "test_op/n64_g8_eps1e-06/fp32", "n48_g4"}) {
    Problem p = op.parse_problem_id(id);
    EXPECT_EQ(op.parse_problem_id(p.id()).id(), p.id());
  }
  EXPECT_DOUBLE_EQ(op.parse_problem_id("test_op/n64_g8_eps1e-06/fp32").real("eps"), 1e-6);
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
  EXPECT_THROW(op.parse_problem_id("test_op/64/fp32"), UsageError);
  EXPECT_THROW(op.parse_problem_id("test_op/n64/fp16"), UsageError);
  EXPECT_THROW(Params::parse("n=abc"), UsageError);
  EXPECT_THROW(Params::parse("n"), UsageError);
}

TEST(Problem, SuitesSelectTheirNamedProblems) {
  TestOp op;
  ASSERT_EQ(op.problems_in("kb").size(), 1u);
  EXPECT_EQ(op.problems_in("kb")[0].id(), "test_op/n4096_g8/fp32");
  EXPECT_EQ(op.problems_in("").size(), 2u);
  EXPECT_TRUE(op.problems_in("llm").empty());
}

}  // namespace
}  // namespace nb
