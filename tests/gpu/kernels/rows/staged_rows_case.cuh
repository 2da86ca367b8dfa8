#pragma once
// The staged-rows GPU tests of rmsnorm_rows and layernorm_rows: a problem whose row takes the
// staged layout and holds more than twice as many rows as there are resident clusters, so every
// cluster walks several rows; register_row must pass it on the given distributions.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpu_harness.hpp"
#include "kernels/primitives/storage.cuh"
#include "kernels/rows/row_plan.hpp"

namespace nb::test {

// resident(T{}, plan): how many of the op's staged clusters fit at once for storage type T.
// layouts: the layouts the op's register_row may take besides registers (its plans').
template <class Resident>
void expect_staged_rows_pass(const std::string& op_name, const RowsCase& c, Resident resident,
                             const std::vector<Distribution>& distributions, rows::RowLayouts layouts = {}) {
  const OpSpec& op = registry().op(op_name);
  const Problem problem = op.make_problem({{"m", double(c.m)}, {"n", double(c.n)}}, c.dtype);
  const int clusters = dispatch_storage(c.dtype, [&](auto type) {
    const rows::RowPlan plan =
        rows::plan_register_row(c.n, sizeof(decltype(type)), /*packs16=*/true, layouts);
    EXPECT_TRUE(plan.staged()) << problem.id();
    return resident(type, plan);
  });
  ASSERT_GE(clusters, 1) << problem.id() << ": the clusters cannot be resident";
  EXPECT_GT(c.m, 2 * clusters) << "too few rows for every cluster to walk more than one";
  expect_variants_pass(op, problem, {"register_row"}, distributions);
}

// The shapes both staged tests walk.
inline auto staged_rows_cases() {
  return testing::Values(RowsCase{DType::bf16, 1100, 65544},  // clusters of 8 x 16 KB, several per SM
                         RowsCase{DType::bf16, 70, 131072},   // clusters of 8 x 32 KB, 2 per SM
                         RowsCase{DType::f16, 40, 262144},    // clusters of 8 x 64 KB, 1 per SM
                         RowsCase{DType::f32, 40, 131072});   // clusters of 8 x 64 KB, 1 per SM
}

}  // namespace nb::test
