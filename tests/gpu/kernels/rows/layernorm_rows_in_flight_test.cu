// layernorm_rows register_row's rows of 16384 bf16/fp16 values at both counts of blocks an SM
// (rows_in_flight.hpp), whatever the device would pick: at three, 40 registers a thread and the
// statistics in one pass of shifted sums; at two, two passes. Each must pass the distributions that
// take the one pass (uniform01) and those that fall back to the squared deviations (offset,
// tiny_var), overflowing squares (wide) and NaN/Inf (special).
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "gpu_harness.hpp"
#include "harness/run/rows_in_flight_setting.hpp"
#include "kernels/rows/row_plan.hpp"
#include "kernels/rows/rows_in_flight.hpp"

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
  DType dtype;
  int blocks;
};

class LayerNormRowsInFlight : public testing::TestWithParam<InFlightCase> {};

TEST_P(LayerNormRowsInFlight, RowsOf16384PassAtEitherCount) {
  const InFlightCase c = GetParam();
  const ScopedRowsInFlight setting(c.blocks);
  ASSERT_EQ(rows::blocks_of_512_an_sm(), c.blocks);
  // The plan the launch asks for that count: one block of 512 lanes, four 16-byte packs a thread.
  const rows::RowPlan plan = rows::plan_register_row(16384, 2, /*packs16=*/true);
  ASSERT_EQ(plan.layout, rows::RowLayout::block);
  ASSERT_EQ(plan.lanes, 512);
  ASSERT_EQ(plan.packs_per_thread, 4);
  const OpSpec& op = registry().op("layernorm_rows");
  const Problem problem = op.make_problem({{"m", 700.0}, {"n", 16384.0}}, c.dtype);
  expect_variants_pass(op, problem, {"register_row"},
                       {Distribution::uniform01, Distribution::offset, Distribution::tiny_var, Distribution::wide,
                        Distribution::special});
}

INSTANTIATE_TEST_SUITE_P(LayerNormRows, LayerNormRowsInFlight,
                         testing::Values(InFlightCase{DType::bf16, 3}, InFlightCase{DType::f16, 3},
                                         InFlightCase{DType::bf16, 2}),
                         [](const testing::TestParamInfo<InFlightCase>& info) {
                           return std::string(info.param.dtype == DType::bf16 ? "bf16" : "fp16") + "_blocks" +
                                  std::to_string(info.param.blocks);
                         });

}  // namespace
}  // namespace nb::test
