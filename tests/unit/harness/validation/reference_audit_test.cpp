// Which slices Eigen's audit recomputes: every slice of a small problem; of a large one the first,
// the last, those holding `special`'s NaN/Inf (up to half of them) and random ones up to 64, fewer
// when the slices are large; always the same for a seed, and different between seeds.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "harness/registry.hpp"
#include "harness/validation/reference_audit.hpp"
#include "kernels/ops.hpp"

namespace nb {
namespace {

const OpSpec& op_named(const std::string& name) {
  static const Registry r(make_ops());
  return r.op(name);
}

struct Chosen {
  std::vector<std::int64_t> slices;
  std::int64_t count;
};

Chosen choose(std::int64_t m, std::int64_t n, Distribution d, std::uint64_t seed, AuditBudget budget = {},
              const std::string& op_name = "rmsnorm_rows", std::size_t family_index = 0) {
  const OpSpec& op = op_named(op_name);
  const Problem p = op.make_problem({{"m", double(m)}, {"n", double(n)}});
  const std::vector<TensorDecl> decls = op.tensors(p);
  const std::vector<InputDraw> draws = op.input_draws(p, d);
  const ProgramTensors tensors;
  const ProgramReference reference;
  const TrialTolerances tolerances;
  const DeviceTrial trial{op, p, decls, tensors, reference, draws, seed, tolerances};
  const SliceFamily family = op.slice_families(p).at(family_index);
  return {audit_slices(family, trial, budget), family.count};
}

TEST(AuditSlices, ASmallProblemIsAuditedWhole) {
  const Chosen c = choose(7, 1000, Distribution::normal, 1);
  EXPECT_EQ(std::int64_t(c.slices.size()), c.count);
}

TEST(AuditSlices, ALargeProblemGetsTheEndsTheSpecialsAndRandomRows) {
  const Chosen c = choose(32768, 8192, Distribution::special, 1003);
  ASSERT_EQ(c.slices.size(), 64u);
  EXPECT_TRUE(std::is_sorted(c.slices.begin(), c.slices.end()));
  EXPECT_EQ(std::set<std::int64_t>(c.slices.begin(), c.slices.end()).size(), c.slices.size());
  EXPECT_EQ(c.slices.front(), 0);
  EXPECT_EQ(c.slices.back(), 32767);
  // Every row where `special` planted a NaN or an infinity (67 of them, more than half of 64: the
  // first 31 of them) is among the audited ones.
  const std::int64_t n = std::int64_t(32768) * 8192;
  int planted_rows_audited = 0;
  for (std::int64_t k = 0; k < 31; ++k) {
    const std::int64_t row = element_draw::special_position(1003, 1, k, n) / 8192;
    planted_rows_audited += std::binary_search(c.slices.begin(), c.slices.end(), row);
  }
  EXPECT_EQ(planted_rows_audited, 31);
  EXPECT_EQ(choose(32768, 8192, Distribution::special, 1003).slices, c.slices) << "a seed chooses the same rows";
  EXPECT_NE(choose(32768, 8192, Distribution::special, 1004).slices, c.slices) << "another seed, other rows";
}

TEST(AuditSlices, LargeSlicesAreFewerWithinTheBudgetButNeverFewerThanTwo) {
  // Rows of 2^22 elements: x and y make 2^23 of each row's own (w, shared, does not count), so
  // four rows fill 2^25.
  const Chosen c = choose(64, std::int64_t(1) << 22, Distribution::normal, 7);
  EXPECT_EQ(c.slices.size(), 4u);
  EXPECT_EQ(c.slices.front(), 0);
  EXPECT_EQ(c.slices.back(), 63);
  const AuditBudget tight{0, 64, std::int64_t(1) << 20};
  const std::vector<std::int64_t> ends{0, 63};
  EXPECT_EQ(choose(64, std::int64_t(1) << 22, Distribution::normal, 7, tight).slices, ends);
}

// The row backwards' column family (dw, db): a column of M rows is M runs of one element, so tall
// problems audit fewer columns, 2^20 runs a tensor at most, and other ones each trial.
TEST(AuditSlices, TallColumnsAreFewerAndOthersEachTrial) {
  constexpr std::size_t kColumns = 1;
  const Chosen wide = choose(4096, 8192, Distribution::normal, 11, {}, "rmsnorm_rows_bwd", kColumns);
  EXPECT_EQ(wide.count, 8192);
  EXPECT_EQ(wide.slices.size(), 64u) << "2^20 / 4096 = 256 columns allowed, the budget's 64 taken";
  const Chosen tall = choose(131072, 2048, Distribution::normal, 11, {}, "layernorm_rows_bwd", kColumns);
  ASSERT_EQ(tall.slices.size(), 8u) << "2^20 / 131072 rows";
  EXPECT_EQ(tall.slices.front(), 0);
  EXPECT_EQ(tall.slices.back(), 2047);
  const Chosen next_trial = choose(131072, 2048, Distribution::normal, 12, {}, "layernorm_rows_bwd", kColumns);
  EXPECT_NE(next_trial.slices, tall.slices) << "another trial's seed, other columns";
  EXPECT_EQ(choose(std::int64_t(1) << 22, 64, Distribution::normal, 11, {}, "rmsnorm_rows_bwd", kColumns).slices.size(),
            2u)
      << "never fewer than two columns";
}

// The column family counts a slice problem's elements without listing its runs, and the count is
// what the runs hold.
TEST(AuditSlices, ColumnElementsCountedAsTheRunsList) {
  for (const std::string name : {"rmsnorm_rows_bwd", "layernorm_rows_bwd"}) {
    const OpSpec& op = op_named(name);
    const Problem p = op.make_problem({{"m", 300.0}, {"n", 40.0}});
    const SliceFamily f = op.slice_families(p).at(1);
    ASSERT_EQ(f.unit, "column");
    ASSERT_TRUE(f.elements);
    const std::vector<std::int64_t> columns{3, 4, 5, 17, 39};
    const Problem slice_problem = f.problem(columns);
    const std::vector<TensorDecl> decls = op.tensors(slice_problem);
    for (std::size_t t = 0; t < decls.size(); ++t) {
      const std::int64_t listed = run_elements(f.runs(int(t), columns));
      EXPECT_EQ(f.elements(int(t), std::int64_t(columns.size())), listed) << name << " tensor " << decls[t].name;
      EXPECT_EQ(listed, decls[t].elements) << name << " tensor " << decls[t].name;
    }
  }
}

}  // namespace
}  // namespace nb
