// A kernel that drops a norm's affine (BatchNorm's, GroupNorm's and LayerNorm's gamma and beta,
// RMSNorm's weight) must fail everywhere: no op may draw its affine trivially, on any
// distribution. Every scale is drawn away from 1 and every shift away from 0, and neither is a
// constant (a constant scale could hide in a wrong normalisation).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "harness/registry.hpp"
#include "kernels/ops.hpp"

namespace nb {
namespace {

// The affine inputs by name, and the value that would make each a no-op.
const std::map<std::string, float> kIdentityOf = {{"gamma", 1.0f}, {"w", 1.0f}, {"scale", 1.0f},
                                                  {"beta", 0.0f},  {"b", 0.0f},  {"bias", 0.0f}, {"add_bias", 0.0f}};

// The op's smallest quick problem whose affine inputs have at least 8 elements each (the
// smallest of all when it has none): the draws are the same at every size.
Problem small_quick_problem(const OpSpec& op) {
  std::vector<Problem> quick = op.problems_in("quick");
  EXPECT_FALSE(quick.empty()) << op.name();
  const auto affine_ok = [&](const Problem& p) {
    for (const TensorDecl& d : op.tensors(p))
      if (kIdentityOf.count(d.name) && d.elements < 8) return false;
    return true;
  };
  const auto size = [&](const Problem& p) { return total_elements(op.tensors(p)) + (affine_ok(p) ? 0 : (1ll << 50)); };
  return *std::min_element(quick.begin(), quick.end(), [&](const Problem& a, const Problem& b) { return size(a) < size(b); });
}

TEST(AffineDraws, NoOpDrawsItsAffineTriviallyOnAnyDistribution) {
  const Registry registry(make_ops());
  std::set<std::string> ops_with_affine;
  for (const auto& op : registry.ops()) {
    const Problem p = small_quick_problem(*op);
    const std::vector<TensorDecl> decls = op->tensors(p);
    for (Distribution d : all_distributions()) {
      HostTensors in = allocate_host_inputs(decls);
      draw_stored_inputs(*op, p, decls, d, 11, in);
      for (std::size_t i = 0; i < decls.size(); ++i) {
        const auto identity = kIdentityOf.find(decls[i].name);
        if (decls[i].role != TensorRole::input || identity == kIdentityOf.end()) continue;
        const std::vector<float>& v = in.data[i];
        ASSERT_FALSE(v.empty());
        const auto at_identity = std::count(v.begin(), v.end(), identity->second);
        const auto [low, high] = std::minmax_element(v.begin(), v.end());
        EXPECT_LT(double(at_identity), 0.01 * double(v.size()) + 1) << p.id() << " " << decls[i].name;
        if (v.size() > 1) {
          EXPECT_LT(*low, *high) << p.id() << " " << decls[i].name << ": a constant";
        }
        ops_with_affine.insert(op->name());
      }
    }
  }
  for (const char* norm : {"batchnorm_train", "batchnorm_bwd", "groupnorm", "layernorm_rows", "rmsnorm_rows"})
    EXPECT_TRUE(ops_with_affine.count(norm)) << norm << ": no affine input found by name (" << ops_with_affine.size()
                                             << " ops checked)";
}

}  // namespace
}  // namespace nb
