// softmax onchip (and dispatch, which hands it rows over 32 KB) on a persistent grid where each
// cluster walks several rows, fetching the next row's slice into registers while it merges and
// writes this one. The quick suite's long rows number 2 to 4, fewer than the clusters that fit,
// so no cluster gets a second row there; these problems hold more than twice as many rows as
// there are resident clusters, in every storage type, with 16-byte and single-element packs.
// Distributions: uniform01, wide (one-hot rows; fp16's long rows store subnormals), special
// (NaN/Inf in some rows, which must not leak into the next row a cluster visits).
#include <gtest/gtest.h>

#include "gpu_harness.hpp"
#include "kernels/softmax/onchip.hpp"

namespace nb::test {
namespace {

struct WalkCase {
  DType dtype;
  std::int64_t m, n;
};

class SoftmaxOnchipRows : public testing::TestWithParam<WalkCase> {};

TEST_P(SoftmaxOnchipRows, ClustersThatWalkSeveralRowsPass) {
  const WalkCase c = GetParam();
  const OpSpec& op = registry().op("softmax");
  const Problem problem = op.make_problem({{"m", double(c.m)}, {"n", double(c.n)}}, c.dtype);
  const int clusters = softmax::onchip_resident_clusters(problem);
  ASSERT_GE(clusters, 1) << problem.id() << ": the clusters cannot be resident";
  EXPECT_GT(c.m, 2 * clusters) << "too few rows for every cluster to walk more than one";

  ValidationPlan plan;
  plan.distributions = {Distribution::uniform01, Distribution::wide, Distribution::special};
  std::vector<Variant*> variants = {op.find_variant("onchip"), op.find_variant("dispatch")};
  ASSERT_NE(variants[0], nullptr);
  ASSERT_NE(variants[1], nullptr);
  const auto outcomes = validate_variants(op, problem, variants, plan);
  for (std::size_t k = 0; k < variants.size(); ++k) {
    SCOPED_TRACE(problem.id() + " / " + variants[k]->name());
    ASSERT_EQ(outcomes[k].status, CaseStatus::ran) << describe(outcomes[k]);
    for (const auto& d : outcomes[k].validation.distributions) {
      EXPECT_TRUE(d.passed) << distribution_name(d.distribution) << ": " << d.failure;
      EXPECT_EQ(d.unwritten, 0);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Softmax, SoftmaxOnchipRows,
    testing::Values(WalkCase{DType::bf16, 600, 32768},    // one CTA of 64 KB per row, 2 per SM
                    WalkCase{DType::f16, 300, 65536},     // clusters of 2 x 64 KB
                    WalkCase{DType::bf16, 80, 262144},    // clusters of 8 x 64 KB
                    WalkCase{DType::bf16, 80, 300001},    // odd: single elements, 8 x 73 KB
                    WalkCase{DType::f16, 40, 786432},     // the longest narrow row: 8 x 192 KB, 1 per SM
                    WalkCase{DType::f32, 40, 393216}),    // 8 x 192 KB, 1 per SM
    [](const testing::TestParamInfo<WalkCase>& info) {
      return dtype_name(info.param.dtype) + "_m" + std::to_string(info.param.m) + "_n" + std::to_string(info.param.n);
    });

}  // namespace
}  // namespace nb::test
