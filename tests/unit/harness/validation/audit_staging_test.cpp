// Where the audit's copies land: host memory handed out in aligned pieces that stay valid until
// recycle(), reused from trial to trial (one block once it knows a trial's size), and the
// executor's scratch kept alive until then.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>

#include "harness/validation/audit_staging.hpp"

namespace nb {
namespace {

TEST(AuditStaging, PiecesStayValidUntilRecycledThenOneBlockHoldsATrial) {
  AuditStaging staging(false);
  std::vector<double*> pieces;
  for (int i = 0; i < 40; ++i) {
    double* p = staging.host<double>(std::int64_t(1) << 15);  // 256 KB each: more than the first block
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % 256, 0u);
    for (int k = 0; k < (1 << 15); ++k) p[k] = i;
    pieces.push_back(p);
  }
  for (int i = 0; i < 40; ++i) EXPECT_EQ(pieces[std::size_t(i)][(1 << 15) - 1], i) << "a later piece overwrote it";
  const std::size_t took = std::size_t(40) << 18;
  EXPECT_GT(staging.capacity_bytes(), took) << "doubling blocks";
  staging.recycle();
  EXPECT_EQ(staging.capacity_bytes(), took) << "the blocks become one the size of what the trial took";
  for (int i = 0; i < 40; ++i) staging.host<double>(std::int64_t(1) << 15);
  EXPECT_EQ(staging.capacity_bytes(), took) << "the next trial of the same size fits without growing";
}

TEST(AuditStaging, OneLargePieceDoesNotDoubleWhatIsPinned) {
  AuditStaging staging(false);
  staging.host<float>(std::int64_t(1) << 26);  // 256 MB, as a GEMM's whole x
  staging.host<float>(16);
  EXPECT_LE(staging.capacity_bytes(), (std::size_t(256) << 20) + (std::size_t(64) << 20) + (std::size_t(1) << 20));
}

TEST(AuditStaging, KeepsScratchAliveUntilRecycled) {
  AuditStaging staging(false);
  auto scratch = std::make_shared<int>(7);
  const std::weak_ptr<int> watch = scratch;
  staging.keep(std::move(scratch));
  EXPECT_FALSE(watch.expired());
  staging.recycle();
  EXPECT_TRUE(watch.expired());
}

}  // namespace
}  // namespace nb
