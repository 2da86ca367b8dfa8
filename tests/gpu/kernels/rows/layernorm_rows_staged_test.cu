// layernorm_rows register_row's staged layout on a persistent grid: each cluster walks several
// rows, copying the next row's slice while it reduces and writes this one. A row takes two
// exchanges (the mean, then the squared deviations) and five when the squares overflow (`wide`),
// so the blocks' two result slots change turn within rows as well as between them. The quick
// suite's staged problems have 4 to 6 rows, fewer than the clusters that fit, so no cluster gets a
// second row there; these problems hold more than twice as many rows as there are resident
// clusters. offset checks the two-pass statistics; special, that NaN/Inf do not leak into the next
// row a cluster visits. The bf16 rows of 65544 and 131072 (slices of at most 32 KB) run the
// overlapped rows (overlapped_rows.cu), whose own test counts their clusters; fp16 262144 and fp32
// run staged_rows.cu.
#include <gtest/gtest.h>

#include "staged_rows_case.cuh"
#include "kernels/rows/layernorm_rows/staged_rows.hpp"

namespace nb::test {
namespace {

class LayerNormStagedRows : public testing::TestWithParam<RowsCase> {};

TEST_P(LayerNormStagedRows, ClustersThatWalkSeveralRowsPass) {
  expect_staged_rows_pass(
      "layernorm_rows", GetParam(),
      [](auto type, const rows::RowPlan& plan) {
        return layernorm_rows::resident_staged_clusters<decltype(type)>(plan);
      },
      {Distribution::uniform01, Distribution::offset, Distribution::wide, Distribution::special},
      rows::RowLayouts{}.without_held_split());
}

INSTANTIATE_TEST_SUITE_P(
    LayerNormRows, LayerNormStagedRows,
    staged_rows_cases(),
    [](const testing::TestParamInfo<RowsCase>& info) { return rows_case_name(info.param); });

}  // namespace
}  // namespace nb::test
