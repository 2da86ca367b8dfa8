// The fused row backwards' posted rows (kernels/rows/rows_bwd/posted_rows.cuh): a warp posts row
// i + 1's sums before it collects row i's, on four rounds of mbarriers a slot, three rows' words in
// its registers. The cases take slots of two to sixteen warps, one to four slots a CTA, bands
// whose rows are not a multiple of three or four a slot (and slots of a band with different row
// counts), threads past the row's last pack, and bands of fewer rows than the three in flight.
// offset sends LayerNorm's xhat through its cancellation, special puts NaN and Inf in some rows,
// which must not reach the next row a slot takes.
#include <gtest/gtest.h>

#include <string>

#include "gpu_harness.hpp"
#include "kernels/rows/rows_bwd/fused_plan.hpp"

namespace nb::test {
namespace {

struct PostedCase {
  const char* op;
  RowsCase rows;
};

class RowsBwdPosted : public testing::TestWithParam<PostedCase> {};

TEST_P(RowsBwdPosted, SumsCollectedARowLaterPass) {
  const PostedCase c = GetParam();
  const OpSpec& op = registry().op(c.op);
  const Problem problem = op.make_problem({{"m", double(c.rows.m)}, {"n", double(c.rows.n)}}, c.rows.dtype);
  const int sums = std::string(c.op) == "layernorm_rows_bwd" ? 2 : 1;
  const rows_bwd::FusedPlan plan = rows_bwd::plan_fused(c.rows.n, 8, sums);
  ASSERT_TRUE(rows_bwd::posted_rows_fit(plan)) << problem.id() << " does not take the posted rows";
  expect_variants_pass(op, problem, {"fused"},
                       {Distribution::normal, Distribution::offset, Distribution::wide, Distribution::special});
}

INSTANTIATE_TEST_SUITE_P(
    RowsBwd, RowsBwdPosted,
    testing::Values(PostedCase{"rmsnorm_rows_bwd", {DType::bf16, 3001, 512}},    // 4 slots of 2 warps
                    PostedCase{"layernorm_rows_bwd", {DType::f16, 1001, 1000}},  // 2 slots of 4 warps, 125 packs
                    PostedCase{"layernorm_rows_bwd", {DType::bf16, 2049, 2048}},  // 1 slot of 8 warps
                    PostedCase{"rmsnorm_rows_bwd", {DType::f16, 517, 4096}},      // 1 slot of 16 warps
                    PostedCase{"layernorm_rows_bwd", {DType::bf16, 5, 4096}},     // bands of 2 and 3 rows
                    PostedCase{"rmsnorm_rows_bwd", {DType::bf16, 7, 1024}}),      // one band: slots of 4 and 3 rows
    [](const testing::TestParamInfo<PostedCase>& info) {
      return std::string(info.param.op).substr(0, 3) + "_" + rows_case_name(info.param.rows);
    });

}  // namespace
}  // namespace nb::test
