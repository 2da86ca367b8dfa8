// layernorm_rows register_row's staged layout on a persistent grid: each cluster walks several
// rows, copying the next row's slice while it reduces and writes this one. A row takes two
// exchanges (the mean, then the squared deviations) and five when the squares overflow (`wide`),
// so the blocks' two result slots change turn within rows as well as between them. The quick
// suite's staged problems have 4 to 6 rows, fewer than the clusters that fit, so no cluster gets a
// second row there; these problems hold more than twice as many rows as there are resident
// clusters. offset checks the two-pass statistics; special, that NaN/Inf do not leak into the next
// row a cluster visits.
#include <gtest/gtest.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "gpu_harness.hpp"
#include "kernels/common/storage.cuh"
#include "kernels/layernorm_rows/staged_rows.hpp"
#include "kernels/rmsnorm_rows/row_plan.hpp"

namespace nb::test {
namespace {

struct StagedCase {
  DType dtype;
  std::int64_t m, n;
};

class LayerNormStagedRows : public testing::TestWithParam<StagedCase> {};

TEST_P(LayerNormStagedRows, ClustersThatWalkSeveralRowsPass) {
  const StagedCase c = GetParam();
  const OpSpec& op = registry().op("layernorm_rows");
  const Problem problem = op.make_problem({{"m", double(c.m)}, {"n", double(c.n)}}, c.dtype);
  const int clusters = dispatch_storage(c.dtype, [&](auto type) {
    using T = decltype(type);
    const rmsnorm_rows::RowPlan plan = rmsnorm_rows::plan_register_row(c.n, sizeof(T), /*packs16=*/true);
    EXPECT_TRUE(plan.staged()) << problem.id();
    return layernorm_rows::resident_staged_clusters<T>(plan);
  });
  ASSERT_GE(clusters, 1) << problem.id() << ": the staged clusters cannot be resident";
  EXPECT_GT(c.m, 2 * clusters) << "too few rows for every cluster to walk more than one";

  ValidationPlan plan;
  plan.distributions = {Distribution::uniform01, Distribution::offset, Distribution::wide, Distribution::special};
  Variant* register_row = op.find_variant("register_row");
  ASSERT_NE(register_row, nullptr);
  const auto outcomes = validate_variants(op, problem, {register_row}, plan);
  ASSERT_EQ(outcomes[0].status, CaseStatus::ran) << describe(outcomes[0]);
  for (const auto& d : outcomes[0].validation.distributions) {
    EXPECT_TRUE(d.passed) << problem.id() << " " << distribution_name(d.distribution) << ": " << d.failure;
    EXPECT_EQ(d.unwritten, 0);
  }
}

INSTANTIATE_TEST_SUITE_P(
    LayerNormRows, LayerNormStagedRows,
    testing::Values(StagedCase{DType::bf16, 1100, 8200},    // one block per row, several per SM
                    StagedCase{DType::bf16, 70, 131072},    // clusters of 8 x 32 KB, 2 per SM
                    StagedCase{DType::f16, 40, 262144},     // clusters of 8 x 64 KB, 1 per SM
                    StagedCase{DType::f32, 40, 131072}),    // clusters of 8 x 64 KB, 1 per SM
    [](const testing::TestParamInfo<StagedCase>& info) {
      return dtype_name(info.param.dtype) + "_m" + std::to_string(info.param.m) + "_n" + std::to_string(info.param.n);
    });

}  // namespace
}  // namespace nb::test
