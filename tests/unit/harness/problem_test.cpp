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

// The id alone rebuilds the problem: a real parameter keeps every digit it was given, where %g's
// six digits named eps = 0.1234567 as eps0.123457 (found by the params fuzz target's property).
TEST(Problem, AnIdKeepsEveryDigitOfARealParameter) {
  TestOp op;
  for (double eps : {0.1234567, 1.0000001e-5, 0.30000000000000004, 4.9e-324}) {
    const Problem p = op.make_problem({{"n", 64}, {"eps", eps}});
    EXPECT_EQ(op.parse_problem_id(p.id()).real("eps"), eps) << p.id();
  }
  EXPECT_EQ(op.make_problem({{"n", 64}, {"eps", 0.125}}).id(), "copy_op/n64_eps0.125/fp32");
}

// A value of 100,000 digits (a command line takes 128 KB) is checked without recursion: std::regex
// matched it one stack frame per character and `--params n=<30,000 digits>` died of a segfault.
TEST(Problem, AValueOfAHundredThousandDigitsIsCheckedWithoutACrash) {
  const std::string digits(100000, '7');
  EXPECT_TRUE(is_plain_integer(digits));
  EXPECT_FALSE(is_plain_integer(digits + "x"));
  EXPECT_THROW(Params::parse("n=" + digits), UsageError);  // beyond a double: not finite
  EXPECT_EQ(Params::parse("n=0." + digits).real("n"), 0.7777777777777778);
  TestOp op;
  EXPECT_THROW(op.parse_problem_id("copy_op/n" + digits + "/fp32"), UsageError);
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

// A dim is written in plain decimal digits: hexadecimal, exponents and values past 2^63 are
// refused quoting the text as given (2^63 once read back as a negative number); reals (eps) keep
// their decimal exponents.
TEST(Problem, ParameterValuesAreQuotedAsWritten) {
  TestOp op;
  auto message = [&](const std::string& params) {
    try {
      op.make_problem(Params::parse(params));
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("n=0x10").find("'0x10'"), std::string::npos);
  EXPECT_NE(message("n=1e2").find("'1e2'"), std::string::npos);
  EXPECT_NE(message("n=+64").find("'+64'"), std::string::npos);
  EXPECT_NE(message("n=64.0").find("'64.0'"), std::string::npos);
  for (const char* huge : {"9223372036854775808", "18446744073709551616", "99999999999999999999999"}) {
    const std::string text = message(std::string("n=") + huge);
    EXPECT_NE(text.find(std::string("= ") + huge + " is out of range"), std::string::npos) << text;
    EXPECT_EQ(text.find("-9223372036854775808"), std::string::npos) << text;
  }
  EXPECT_NE(message("n=-4").find("'n' = -4 is out of range"), std::string::npos);
  EXPECT_EQ(message("n=64,eps=1e-5"), "no error");
  EXPECT_EQ(message("n=64,eps=.5"), "no error");
  EXPECT_NE(message("n=64,eps=0x1p-3").find("'0x1p-3'"), std::string::npos);
  EXPECT_THROW(op.parse_problem_id("copy_op/n0x40/fp32"), UsageError);
  EXPECT_THROW(op.parse_problem_id("copy_op/n64_n32/fp32"), UsageError);  // a parameter given twice
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
