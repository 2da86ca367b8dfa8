// normbench eval's hidden odd sibling (harness/odd_sibling.hpp): every named problem of every op
// has one that its op accepts, that is small, differs from it and has moved to odd values.
#include <gtest/gtest.h>

#include "harness/odd_sibling.hpp"
#include "harness/registry.hpp"
#include "kernels/ops.hpp"

namespace nb {
namespace {

const Registry& registry() {
  static const Registry r(make_ops());
  return r;
}

// Integer parameters that moved, and moved to an odd value.
int moved_to_odd(const OpSpec& op, const Problem& from, const Problem& to) {
  int moved = 0;
  for (const ParamDecl& d : op.param_decls())
    if (d.integer && to.dim(d.name) != from.dim(d.name) && to.dim(d.name) % 2 == 1) ++moved;
  return moved;
}

bool every_integer_is_one(const OpSpec& op, const Problem& p) {
  for (const ParamDecl& d : op.param_decls())
    if (d.integer && p.dim(d.name) != 1) return false;
  return true;
}

TEST(OddSibling, EveryNamedProblemHasASmallOddSiblingItsOpAccepts) {
  int checked = 0;
  for (const auto& op : registry().ops()) {
    for (const Problem& p : op->problems_in("")) {
      const auto sibling = odd_sibling(*op, p);
      if (every_integer_is_one(*op, p)) {
        EXPECT_FALSE(sibling.has_value()) << p.id() << ": nothing to move";
        continue;
      }
      ASSERT_TRUE(sibling.has_value()) << p.id();
      EXPECT_NE(sibling->id(), p.id());
      EXPECT_EQ(op->parse_problem_id(sibling->id()).id(), sibling->id()) << "the op's own checks accept it";
      EXPECT_EQ(sibling->dtype, p.dtype);
      EXPECT_LE(total_elements(op->tensors(*sibling)), 2 << 20) << sibling->id();
      EXPECT_GT(moved_to_odd(*op, p, *sibling), 0) << p.id() << " -> " << sibling->id();
      EXPECT_EQ(odd_sibling(*op, p)->id(), sibling->id()) << "the same every time";
      ++checked;
    }
  }
  EXPECT_GT(checked, 200);
}

TEST(OddSibling, ShrinksTheKbRowsAndMovesBothToAnOddPrime) {
  const OpSpec& op = registry().op("rmsnorm_rows");
  const auto sibling = odd_sibling(op, op.parse_problem_id("rmsnorm_rows/m4096_n4096/fp32"));
  ASSERT_TRUE(sibling.has_value());
  EXPECT_EQ(sibling->id(), "rmsnorm_rows/m509_n509/fp32");
}

// c must stay a multiple of g = 32: neither can take an odd value, so both keep theirs and the
// other dimensions move.
TEST(OddSibling, KeepsAParameterTheOpsRelationsPin) {
  const OpSpec& op = registry().op("groupnorm");
  const Problem p = op.make_problem({{"n", 16}, {"c", 64}, {"h", 32}, {"w", 32}, {"g", 32}});
  const auto sibling = odd_sibling(op, p);
  ASSERT_TRUE(sibling.has_value());
  EXPECT_EQ(sibling->dim("c") % sibling->dim("g"), 0);
  EXPECT_EQ(sibling->dim("n") % 2, 1);
  EXPECT_EQ(sibling->dim("h") % 2, 1);
  EXPECT_EQ(sibling->dim("w") % 2, 1);
}

}  // namespace
}  // namespace nb
