// register_row's staged layout on a persistent grid: each cluster walks several rows, copying the
// next row's slice while it reduces and writes this one, its blocks' two result slots taking
// turns. The quick suite's staged problems have 4 to 6 rows, fewer than the clusters that fit, so
// no cluster gets a second row there; these problems hold more than twice as many rows as there
// are resident clusters. Distributions: uniform01 (one exchange per row), wide (bf16, fp32: the
// rescale takes three exchanges in a row, so the slots' turn changes within a row), special
// (NaN/Inf in some rows, which must not leak into the next row a cluster visits).
#include <gtest/gtest.h>

#include "staged_rows_case.cuh"
#include "kernels/rows/rmsnorm_rows/staged_rows.hpp"

namespace nb::test {
namespace {

class StagedRows : public testing::TestWithParam<RowsCase> {};

TEST_P(StagedRows, ClustersThatWalkSeveralRowsPass) {
  expect_staged_rows_pass(
      "rmsnorm_rows", GetParam(),
      [](auto type, const rows::RowPlan& plan) {
        return rmsnorm_rows::resident_staged_clusters<decltype(type)>(plan);
      },
      {Distribution::uniform01, Distribution::wide, Distribution::special});
}

INSTANTIATE_TEST_SUITE_P(
    RmsNormRows, StagedRows,
    staged_rows_cases(),
    [](const testing::TestParamInfo<RowsCase>& info) { return rows_case_name(info.param); });

}  // namespace
}  // namespace nb::test
