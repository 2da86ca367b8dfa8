// layernorm_rows register_row's overlapped rows (overlapped_rows.cu): each block posts row i + 1's
// sums before it collects row i's, on an exchange of four buffers, through a ring of x slices. The
// rows here wrap the ring and the buffers many times over (far more rows than clusters), leave the
// last clusters one row short (the last row posts nothing), give a cluster a single row (one row in
// all), and take parts of unequal length (the row's last part shorter, lanes not a power of two).
// offset and special send rows down the guard's second pass, whose rounds come between a posted
// round and its collection; wide adds the rescaling rounds of overflowing squares.
#include <gtest/gtest.h>

#include "gpu_harness.hpp"
#include "kernels/rows/row_plan.hpp"

namespace nb::test {
namespace {

class LayerNormOverlappedRows : public testing::TestWithParam<RowsCase> {};

TEST_P(LayerNormOverlappedRows, PostedRoundsCollectedARowLaterPass) {
  const RowsCase& c = GetParam();
  const rows::RowPlan plan =
      rows::plan_register_row(c.n, 2, /*packs16=*/true, rows::RowLayouts{}.without_held_split());
  ASSERT_TRUE(plan.staged() && plan.parts > 1 && plan.packs_per_part * plan.pack_bytes() <= 32 * 1024)
      << "not a shape of the overlapped rows";
  const OpSpec& op = registry().op("layernorm_rows");
  const Problem problem = op.make_problem({{"m", double(c.m)}, {"n", double(c.n)}}, c.dtype);
  expect_variants_pass(op, problem, {"register_row"},
                       {Distribution::normal, Distribution::offset, Distribution::wide, Distribution::special});
}

INSTANTIATE_TEST_SUITE_P(LayerNormRows, LayerNormOverlappedRows,
                         testing::Values(RowsCase{DType::bf16, 1, 65536},      // one row, one cluster
                                         RowsCase{DType::bf16, 3001, 65536},   // clusters of 4, rows % clusters != 0
                                         RowsCase{DType::f16, 997, 32776},     // 4 x 1025 packs, the last 1022
                                         RowsCase{DType::bf16, 333, 131072},   // clusters of 8 x 32 KB
                                         RowsCase{DType::bf16, 515, 65544}),   // 8 x 1025 packs, the last 1018
                         [](const testing::TestParamInfo<RowsCase>& info) { return rows_case_name(info.param); });

}  // namespace
}  // namespace nb::test
