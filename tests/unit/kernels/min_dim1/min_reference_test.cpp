// min_dim1: the float64 reference against a plain loop, NaN propagation, ids, planted faults.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "baselines/cpu/min_reference.hpp"
#include "harness/validation/compare.hpp"
#include "kernels/min_dim1/spec.hpp"
#include "kernels/ops.hpp"

namespace nb {
namespace {

class MinReference : public testing::Test {
 protected:
  std::unique_ptr<OpSpec> op = make_min_dim1_op();
};

TEST_F(MinReference, MatchesLongDoubleLoop) {
  for (auto [b, c] : {std::pair<int, int>{1, 1}, {3, 1000}, {7, 4097}, {5, 33}}) {
    const Problem p = op->make_problem({{"b", double(b)}, {"c", double(c)}});
    HostTensors in = allocate_host_inputs(op->tensors(p));
    op->draw_inputs(p, Distribution::normal, 4, in);
    ReferenceTensors ref = allocate_references(op->tensors(p));
    op->reference(p, in, ref);
    for (int r = 0; r < b; ++r) {
      long double m = std::numeric_limits<long double>::infinity();
      for (int i = 0; i < c; ++i) m = std::min<long double>(m, in[min_dim1::kX][r * c + i]);
      EXPECT_EQ(ref[min_dim1::kY][r], double(m)) << r;
    }
  }
}

TEST_F(MinReference, NaNPropagatesInfStays) {
  std::vector<float> x = {1, 2, 3, std::numeric_limits<float>::quiet_NaN(), 5, 6, -7, 8, 9,
                          std::numeric_limits<float>::infinity(), std::numeric_limits<float>::infinity(),
                          std::numeric_limits<float>::infinity(), 4, -std::numeric_limits<float>::infinity(), 2};
  std::vector<double> y(5);
  cpu::min_dim1_reference(5, 3, x.data(), y.data());
  EXPECT_EQ(y[0], 1.0);
  EXPECT_TRUE(std::isnan(y[1]));
  EXPECT_EQ(y[2], -7.0);
  EXPECT_EQ(y[3], std::numeric_limits<double>::infinity());
  EXPECT_EQ(y[4], -std::numeric_limits<double>::infinity());
}

TEST_F(MinReference, ProblemIdsRoundTripAndZeroOutputFails) {
  for (const Problem& p : op->problems_in("")) EXPECT_EQ(op->parse_problem_id(p.id()).id(), p.id());
  const Problem p = op->make_problem({{"b", 1024}, {"c", 8192}});
  EXPECT_EQ(p.id(), "min_dim1/b1024_c8192/fp32");
  const auto decls = op->tensors(p);
  HostTensors in = allocate_host_inputs(decls);
  op->draw_inputs(p, Distribution::normal, 9, in);
  ReferenceTensors ref = allocate_references(decls);
  op->reference(p, in, ref);
  HostTensors out;
  out.data.resize(decls.size());
  out[min_dim1::kY].assign(1024, 0.0f);
  EXPECT_FALSE(judge_trial(decls, out, ref, op->tolerance(p), false).passed);
  for (int r = 0; r < 1024; ++r) out[min_dim1::kY][r] = float(ref[min_dim1::kY][r]);
  EXPECT_TRUE(judge_trial(decls, out, ref, op->tolerance(p), false).passed);
}

}  // namespace
}  // namespace nb
