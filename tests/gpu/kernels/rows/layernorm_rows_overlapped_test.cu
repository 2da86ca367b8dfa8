// layernorm_rows register_row's overlapped rows (overlapped_rows.cu): each block posts row i + 1's
// sums before it collects row i's, on an exchange of four buffers, through a ring of x slices. The
// rows here are more than twice the resident clusters, so the ring and the buffers wrap many times
// over; they leave the last clusters one row short (the last row posts nothing) and take parts of
// unequal length (the row's last part shorter, lanes not a power of two). A cluster of a single row
// is the quick suite's (4 rows of 40008 and 131072). offset and special send rows down the guard's
// second pass, whose rounds come between a posted round and its collection; wide adds the
// rescaling rounds of overflowing squares.
#include <gtest/gtest.h>

#include "staged_rows_case.cuh"
#include "kernels/rows/layernorm_rows/overlapped_rows.hpp"

namespace nb::test {
namespace {

class LayerNormOverlappedRows : public testing::TestWithParam<RowsCase> {};

TEST_P(LayerNormOverlappedRows, PostedRoundsCollectedARowLaterPass) {
  expect_staged_rows_pass(
      "layernorm_rows", GetParam(),
      [](auto type, const rows::RowPlan& plan) {
        return layernorm_rows::resident_overlapped_clusters<decltype(type)>(plan);
      },
      {Distribution::normal, Distribution::offset, Distribution::wide, Distribution::special},
      rows::RowLayouts{}.without_held_split());
}

INSTANTIATE_TEST_SUITE_P(LayerNormRows, LayerNormOverlappedRows,
                         testing::Values(RowsCase{DType::bf16, 3001, 65536},   // clusters of 4, rows % clusters != 0
                                         RowsCase{DType::f16, 997, 32776},     // 4 x 1025 packs, the last 1022
                                         RowsCase{DType::bf16, 333, 131072},   // clusters of 8 x 32 KB
                                         RowsCase{DType::bf16, 515, 65544}),   // 8 x 1025 packs, the last 1018
                         [](const testing::TestParamInfo<RowsCase>& info) { return rows_case_name(info.param); });

}  // namespace
}  // namespace nb::test
