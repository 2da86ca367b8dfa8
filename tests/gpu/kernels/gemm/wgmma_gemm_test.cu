// The Hopper GEMM (kernels/gemm/sm90/): through the store epilogue against a float64 GEMM on
// shapes that leave partial tiles in M, N and K, wrap the 4-stage ring many times, or have a
// single k block, in each stage release and tile order; and its refusals (K not a multiple of 4,
// operands off 16-byte alignment).
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "gemm_test_problem.hpp"
#include "kernels/gemm/sm90/wgmma_gemm.hpp"
#include "kernels/gemm/store_epilogue.cuh"

namespace nb::gemm {
namespace {

using namespace test;

// The last two have more M tiles than a group of the grouped order (16), and a short last group.
const Shape kShapes[] = {{1, 1, 4},          {2, 5, 8},        {127, 33, 1000}, {128, 512, 1024},
                         {257, 129, 68},     {64, 256, 512},   {300, 600, 260}, {129, 257, 4},
                         {1024, 1024, 1024}, {130, 1000, 4096}, {2100, 520, 36}, {4500, 300, 8}};

// Skips on a GPU the Hopper GEMM does not run on (its refusal says which).
#define SKIP_UNLESS_SM90()                                                          \
  if (const std::string refusal = sm90::wgmma_device_refusal(); !refusal.empty()) \
  GTEST_SKIP() << refusal

using sm90::MmaOverlap;
using sm90::TileOrder;
using Schedule = std::tuple<MmaOverlap, TileOrder>;

using StoreLaunch = void (*)(const Operands&, const StoreEpilogue&, cudaStream_t);
StoreLaunch store_launch(Schedule schedule) {
  const auto [overlap, order] = schedule;
  if (order == TileOrder::m_fastest)
    return overlap == MmaOverlap::none ? &sm90::launch_wgmma_gemm_store<MmaOverlap::none, TileOrder::m_fastest>
                                       : &sm90::launch_wgmma_gemm_store<MmaOverlap::one_group, TileOrder::m_fastest>;
  return overlap == MmaOverlap::none ? &sm90::launch_wgmma_gemm_store<MmaOverlap::none, TileOrder::grouped>
                                     : &sm90::launch_wgmma_gemm_store<MmaOverlap::one_group, TileOrder::grouped>;
}

std::vector<float> run_wgmma(DeviceProblem& d, bool with_bias, Schedule schedule = {}) {
  d.poison_c();
  const StoreEpilogue store{d.c.as<float>(), d.op.n, with_bias ? d.bias.as<const float>() : nullptr};
  store_launch(schedule)(d.op, store, nullptr);
  return d.read_c();
}

class WgmmaGemm : public testing::TestWithParam<Schedule> {};

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

INSTANTIATE_TEST_SUITE_P(Schedule, WgmmaGemm,
                         testing::Combine(testing::Values(MmaOverlap::none, MmaOverlap::one_group),
                                          testing::Values(TileOrder::m_fastest, TileOrder::grouped)),
                         [](const testing::TestParamInfo<Schedule>& info) {
                           return std::string(std::get<0>(info.param) == MmaOverlap::none ? "none" : "one_group") +
                                  (std::get<1>(info.param) == TileOrder::m_fastest ? "_m_fastest" : "_grouped");
                         });

}  // namespace
}  // namespace nb::gemm
