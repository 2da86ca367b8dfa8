// Which slices Eigen's audit recomputes: every slice of a small problem; of a large one the first,
// the last, those holding `special`'s NaN/Inf (up to half of them) and random ones up to 64, fewer
// when the slices are large; always the same for a seed, and different between seeds.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "harness/registry.hpp"
#include "harness/validation/reference_audit.hpp"
#include "kernels/ops.hpp"

namespace nb {
namespace {

const OpSpec& rows_op() {
  static const Registry r(make_ops());
  return r.op("rmsnorm_rows");
}

struct Chosen {
  std::vector<std::int64_t> slices;
  std::int64_t count;
};

Chosen choose(std::int64_t m, std::int64_t n, Distribution d, std::uint64_t seed, AuditBudget budget = {}) {
  const OpSpec& op = rows_op();
  const Problem p = op.make_problem({{"m", double(m)}, {"n", double(n)}});
  const std::vector<TensorDecl> decls = op.tensors(p);
  const std::vector<InputDraw> draws = op.input_draws(p, d);
  const ProgramTensors tensors;
  const ProgramReference reference;
  const TrialTolerances tolerances;
  const DeviceTrial trial{op, p, decls, tensors, reference, draws, seed, tolerances};
  const SliceFamily family = op.slice_families(p).at(0);
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

}  // namespace
}  // namespace nb
