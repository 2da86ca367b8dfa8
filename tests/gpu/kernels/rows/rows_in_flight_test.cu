// The rows of 16384 bf16/fp16 values of layernorm_rows and rmsnorm_rows (register_row) and softmax
// (dispatch) at both counts of blocks an SM (rows_in_flight.hpp), whatever the device would pick: at
// three, 40 registers a thread (LayerNorm's statistics in one pass of shifted sums, RMSNorm's and
// softmax's rows held as stored); at two, the kernels they take otherwise. Each must pass the
// distributions that take LayerNorm's one pass (uniform01) and those that fall back to the squared
// deviations (offset, tiny_var), overflowing squares (wide) and NaN/Inf (special).
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "gpu_harness.hpp"
#include "harness/run/rows_in_flight_setting.hpp"
#include "kernels/rows/row_plan.hpp"
#include "kernels/rows/rows_in_flight.hpp"
#include "kernels/softmax/launch_plan.hpp"

namespace nb::test {
namespace {

// Sets the process's count for the scope, and puts back what was there.
class ScopedRowsInFlight {
 public:
  explicit ScopedRowsInFlight(int blocks) : old_(rows_in_flight()) { set_rows_in_flight(blocks); }
  ~ScopedRowsInFlight() { set_rows_in_flight(old_); }

 private:
  std::optional<int> old_;
};

struct InFlightCase {
  const char* op;
  const char* variant;
  DType dtype;
  int blocks;
};

class RowsInFlight : public testing::TestWithParam<InFlightCase> {};

TEST_P(RowsInFlight, RowsOf16384PassAtEitherCount) {
  const InFlightCase c = GetParam();
  const ScopedRowsInFlight setting(c.blocks);
  ASSERT_EQ(rows::blocks_of_512_an_sm(), c.blocks);
  // The plans the launches ask for that count: one block of 512 lanes, four 16-byte packs a thread.
  const rows::RowPlan plan = rows::plan_register_row(16384, 2, /*packs16=*/true);
  ASSERT_EQ(plan.layout, rows::RowLayout::block);
  ASSERT_EQ(plan.lanes, 512);
  ASSERT_EQ(plan.packs_per_thread, 4);
  const softmax::DispatchPlan dispatch = softmax::plan_dispatch(16384, 2, /*vec=*/8);
  ASSERT_EQ(dispatch.path, softmax::DispatchPath::block_row);
  ASSERT_EQ(dispatch.lanes, 512);
  ASSERT_EQ(dispatch.packs_per_thread, 4);
  ASSERT_EQ(rows::launches_three_blocks(plan.lanes), c.blocks == 3);  // the launches' own test
  const OpSpec& op = registry().op(c.op);
  const Problem problem = op.make_problem({{"m", 700.0}, {"n", 16384.0}}, c.dtype);
  expect_variants_pass(op, problem, {c.variant},
                       {Distribution::uniform01, Distribution::offset, Distribution::tiny_var, Distribution::wide,
                        Distribution::special});
}

INSTANTIATE_TEST_SUITE_P(
    Rows, RowsInFlight,
    testing::Values(InFlightCase{"layernorm_rows", "register_row", DType::bf16, 3},
                    InFlightCase{"layernorm_rows", "register_row", DType::f16, 3},
                    InFlightCase{"layernorm_rows", "register_row", DType::bf16, 2},
                    InFlightCase{"rmsnorm_rows", "register_row", DType::bf16, 3},
                    InFlightCase{"rmsnorm_rows", "register_row", DType::f16, 3},
                    InFlightCase{"rmsnorm_rows", "register_row", DType::bf16, 2},
                    InFlightCase{"softmax", "dispatch", DType::bf16, 3},
                    InFlightCase{"softmax", "dispatch", DType::f16, 3},
                    InFlightCase{"softmax", "dispatch", DType::bf16, 2}),
    [](const testing::TestParamInfo<InFlightCase>& info) {
      return std::string(info.param.op) + "_" + (info.param.dtype == DType::bf16 ? "bf16" : "fp16") + "_blocks" +
             std::to_string(info.param.blocks);
    });

}  // namespace
}  // namespace nb::test
