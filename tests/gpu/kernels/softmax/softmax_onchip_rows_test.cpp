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

class SoftmaxOnchipRows : public testing::TestWithParam<RowsCase> {};

TEST_P(SoftmaxOnchipRows, ClustersThatWalkSeveralRowsPass) {
  const RowsCase c = GetParam();
  const OpSpec& op = registry().op("softmax");
  const Problem problem = op.make_problem({{"m", double(c.m)}, {"n", double(c.n)}}, c.dtype);
  const int clusters = softmax::onchip_resident_clusters(problem);
  ASSERT_GE(clusters, 1) << problem.id() << ": the clusters cannot be resident";
  EXPECT_GT(c.m, 2 * clusters) << "too few rows for every cluster to walk more than one";
  expect_variants_pass(op, problem,
                       {"onchip", "dispatch"},
                       {Distribution::uniform01, Distribution::wide, Distribution::special});
}

INSTANTIATE_TEST_SUITE_P(
    Softmax, SoftmaxOnchipRows,
    testing::Values(RowsCase{DType::bf16, 600, 32768},    // one CTA of 64 KB per row, 2 per SM
                    RowsCase{DType::f16, 300, 65536},     // clusters of 2 x 64 KB
                    RowsCase{DType::bf16, 80, 262144},    // clusters of 8 x 64 KB
                    RowsCase{DType::bf16, 80, 300001},    // odd: single elements, 8 x 73 KB
                    RowsCase{DType::f16, 40, 786432},     // the longest narrow row: 8 x 192 KB, 1 per SM
                    RowsCase{DType::f32, 40, 393216}),    // 8 x 192 KB, 1 per SM
    [](const testing::TestParamInfo<RowsCase>& info) { return rows_case_name(info.param); });

}  // namespace
}  // namespace nb::test
