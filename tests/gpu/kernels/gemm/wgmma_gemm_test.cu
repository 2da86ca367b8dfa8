// The Hopper GEMM (kernels/gemm/sm90/): through the store epilogue against a float64 GEMM on
// shapes that leave partial tiles in M, N and K, wrap the 4-stage ring many times, or have a
// single k block; and its refusals (K not a multiple of 4, operands off 16-byte alignment).
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "gemm_test_problem.hpp"
#include "kernels/gemm/sm90/wgmma_gemm.hpp"
#include "kernels/gemm/store_epilogue.cuh"

namespace nb::gemm {
namespace {

using namespace test;

const Shape kShapes[] = {{1, 1, 4},        {2, 5, 8},      {127, 33, 1000}, {128, 512, 1024}, {257, 129, 68},
                         {64, 256, 512},   {300, 600, 260}, {129, 257, 4},   {1024, 1024, 1024},
                         {130, 1000, 4096}};

// Skips on a GPU the Hopper GEMM does not run on (its refusal says which).
#define SKIP_UNLESS_SM90()                                                          \
  if (const std::string refusal = sm90::wgmma_device_refusal(); !refusal.empty()) \
  GTEST_SKIP() << refusal

using sm90::MmaOverlap;

std::vector<float> run_wgmma(DeviceProblem& d, bool with_bias, MmaOverlap overlap = MmaOverlap::none) {
  d.poison_c();
  const StoreEpilogue store{d.c.as<float>(), d.op.n, with_bias ? d.bias.as<const float>() : nullptr};
  if (overlap == MmaOverlap::none)
    sm90::launch_wgmma_gemm_store<MmaOverlap::none>(d.op, store, nullptr);
  else
    sm90::launch_wgmma_gemm_store<MmaOverlap::one_group>(d.op, store, nullptr);
  return d.read_c();
}

class WgmmaGemm : public testing::TestWithParam<MmaOverlap> {};

TEST_P(WgmmaGemm, MatchesFloat64OnEveryShape) {
  SKIP_UNLESS_SM90();
  for (const Shape& s : kShapes) {
    SCOPED_TRACE(shape_name(s));
    const HostProblem h(s);
    const std::vector<double> ref = h.reference(false);
    DeviceProblem d(h);
    ASSERT_EQ(sm90::wgmma_gemm_refusal(d.op), "");
    const std::vector<float> c = run_wgmma(d, false, GetParam());
    ASSERT_EQ(first_non_finite(c), c.size()) << "element left unwritten (NaN poison) or not finite";
    const double err = normwise(c, ref);
    EXPECT_LT(err, 3e-3);
    // The operands go through the tensor cores as tf32: an fp32-exact product would be ~1e-7 off.
    if (s.k >= 64) EXPECT_GT(err, 1e-6) << "no tf32 rounding visible";
  }
}

TEST_P(WgmmaGemm, StoreEpilogueAddsTheBias) {
  SKIP_UNLESS_SM90();
  const Shape s{257, 129, 68};
  const HostProblem h(s);
  DeviceProblem d(h);
  const std::vector<float> c = run_wgmma(d, true, GetParam());
  ASSERT_EQ(first_non_finite(c), c.size());
  EXPECT_LT(normwise(c, h.reference(true)), 3e-3);
}

TEST(WgmmaGemmRefusal, RefusesWhatTmaCannotRead) {
  SKIP_UNLESS_SM90();
  const HostProblem odd_k(Shape{33, 70, 7});
  DeviceProblem d(odd_k);
  EXPECT_NE(sm90::wgmma_gemm_refusal(d.op).find("K = 7 is not a multiple of 4"), std::string::npos)
      << sm90::wgmma_gemm_refusal(d.op);
  EXPECT_THROW(run_wgmma(d, false), std::invalid_argument);

  const HostProblem aligned_k(Shape{64, 256, 512});
  DeviceProblem off(aligned_k, 1);  // A and B 4 bytes past a 16-byte boundary
  EXPECT_NE(sm90::wgmma_gemm_refusal(off.op).find("16-byte boundary"), std::string::npos)
      << sm90::wgmma_gemm_refusal(off.op);
  EXPECT_THROW(run_wgmma(off, false), std::invalid_argument);
}

INSTANTIATE_TEST_SUITE_P(Overlap, WgmmaGemm, testing::Values(MmaOverlap::none, MmaOverlap::one_group),
                         [](const testing::TestParamInfo<MmaOverlap>& info) {
                           return std::string(info.param == MmaOverlap::none ? "none" : "one_group");
                         });

}  // namespace
}  // namespace nb::gemm
