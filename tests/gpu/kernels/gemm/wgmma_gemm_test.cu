// The Hopper GEMM (kernels/gemm/sm90/): through the store epilogue against a float64 GEMM on
// shapes that leave partial tiles in M, N and K, wrap the 4-stage ring many times, or have a
// single k block, in each stage release and tile order and on every grid (a CTA per tile;
// persistent with the store from registers, cooperative or ping-pong, alone or in CTA pairs
// multicasting B), in tf32 and in bf16 (against the float64 GEMM of the bf16-rounded operands);
// and its refusals (rows of K not a multiple of 16 bytes, operands off 16-byte alignment).
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

// {2100, 520, 36} and {4500, 300, 8} have more M tiles than a group of the grouped order (16),
// and a short last group; the last two more tiles than an H100 has SMs (297 and 170 of 132), so a
// persistent CTA takes two or three, the ring's phases running on from one tile into the next
// (the ping-pong grid's 64-row tiles: 594 and 340, each warpgroup of a CTA taking one to three,
// and {1024, 1024, 1024}'s 64 leave most CTAs one tile and their second warpgroup idle; in pairs,
// odd M tile counts, {127, 33, 1000} and {4300, 1100, 100}, leave a pair's second tile past M).
const Shape kShapes[] = {{1, 1, 4},          {2, 5, 8},         {127, 33, 1000}, {128, 512, 1024},
                         {257, 129, 68},     {64, 256, 512},    {300, 600, 260}, {129, 257, 4},
                         {1024, 1024, 1024}, {130, 1000, 4096}, {2100, 520, 36}, {4500, 300, 8},
                         {4224, 2304, 72},   {4300, 1100, 100}};

// Skips on a GPU the Hopper GEMM does not run on (its refusal says which).
#define SKIP_UNLESS_SM90()                                                          \
  if (const std::string refusal = sm90::wgmma_device_refusal(); !refusal.empty()) \
  GTEST_SKIP() << refusal

using sm90::MmaOverlap;
using sm90::TileOrder;
using sm90::WgmmaGrid;
using Schedule = std::tuple<MmaOverlap, TileOrder, WgmmaGrid>;

// The store launch of a schedule, for fp32 operands (Launch over Operands) or bf16 ones.
template <class Launch>
Launch schedule_launch(Schedule schedule) {
  const auto [overlap, order, grid] = schedule;
  Launch launch = nullptr;
  if (grid == WgmmaGrid::pingpong_pair && overlap == MmaOverlap::none)
    launch = &sm90::launch_wgmma_gemm_store<MmaOverlap::none, TileOrder::grouped, WgmmaGrid::pingpong_pair>;
  else if (grid == WgmmaGrid::pingpong_pair)
    launch = &sm90::launch_wgmma_gemm_store<MmaOverlap::one_group, TileOrder::grouped, WgmmaGrid::pingpong_pair>;
  else if (grid == WgmmaGrid::pingpong && overlap == MmaOverlap::none)
    launch = &sm90::launch_wgmma_gemm_store<MmaOverlap::none, TileOrder::grouped, WgmmaGrid::pingpong>;
  else if (grid == WgmmaGrid::pingpong)
    launch = &sm90::launch_wgmma_gemm_store<MmaOverlap::one_group, TileOrder::grouped, WgmmaGrid::pingpong>;
  else if (grid == WgmmaGrid::persistent && overlap == MmaOverlap::none)
    launch = &sm90::launch_wgmma_gemm_store<MmaOverlap::none, TileOrder::grouped, WgmmaGrid::persistent>;
  else if (grid == WgmmaGrid::persistent)
    launch = &sm90::launch_wgmma_gemm_store<MmaOverlap::one_group, TileOrder::grouped, WgmmaGrid::persistent>;
  else if (order == TileOrder::m_fastest && overlap == MmaOverlap::none)
    launch = &sm90::launch_wgmma_gemm_store<MmaOverlap::none, TileOrder::m_fastest>;
  else if (order == TileOrder::m_fastest)
    launch = &sm90::launch_wgmma_gemm_store<MmaOverlap::one_group, TileOrder::m_fastest>;
  else if (overlap == MmaOverlap::none)
    launch = &sm90::launch_wgmma_gemm_store<MmaOverlap::none, TileOrder::grouped>;
  else
    launch = &sm90::launch_wgmma_gemm_store<MmaOverlap::one_group, TileOrder::grouped>;
  return launch;
}
using StoreLaunch = void (*)(const Operands&, const StoreEpilogue&, cudaStream_t);
using Bf16StoreLaunch = void (*)(const Bf16Operands&, const StoreEpilogue&, cudaStream_t);

std::vector<float> run_wgmma(DeviceProblem& d, bool with_bias, Schedule schedule = {}) {
  d.poison_c();
  const StoreEpilogue store{d.c.as<float>(), d.op.n, with_bias ? d.bias.as<const float>() : nullptr};
  schedule_launch<StoreLaunch>(schedule)(d.op, store, nullptr);
  return d.read_c();
}

// C of the bf16 operands `in`, written into d's C (d's bias when with_bias).
std::vector<float> run_wgmma_bf16(DeviceProblem& d, const Bf16DeviceOperands& in, bool with_bias,
                                  Schedule schedule = {}) {
  d.poison_c();
  const StoreEpilogue store{d.c.as<float>(), d.op.n, with_bias ? d.bias.as<const float>() : nullptr};
  schedule_launch<Bf16StoreLaunch>(schedule)(in.op, store, nullptr);
  return d.read_c();
}

// fp32 accumulation of exact bf16 products: the float64 GEMM of the rounded operands to fp32 sums.
double bf16_bound(int k) { return 4 * fp32_bound(k); }

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

TEST_P(WgmmaGemm, Bf16MatchesFloat64OfTheRoundedOperandsOnEveryShape) {
  SKIP_UNLESS_SM90();
  int shapes = 0;
  for (const Shape& s : kShapes) {
    if (s.k % 8 != 0) continue;  // bf16 rows of K must be whole 16 bytes (the refusal test)
    SCOPED_TRACE(shape_name(s));
    ++shapes;
    const HostProblem h(s);
    const HostProblem rounded = bf16_rounded(h);
    DeviceProblem d(h);
    const Bf16DeviceOperands in(h);
    ASSERT_EQ(sm90::wgmma_gemm_refusal(in.op), "");
    const std::vector<float> c = run_wgmma_bf16(d, in, false, GetParam());
    ASSERT_EQ(first_non_finite(c), c.size()) << "element left unwritten (NaN poison) or not finite";
    EXPECT_LT(normwise(c, rounded.reference(false)), bf16_bound(s.k));
    // Against the unrounded operands the bf16 rounding shows (2^-9 relative per operand).
    if (s.k >= 64) EXPECT_GT(normwise(c, h.reference(false)), 1e-4) << "no bf16 rounding visible";
  }
  EXPECT_GE(shapes, 8);
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

  const HostProblem k12(Shape{33, 70, 12});
  DeviceProblem k12_c(k12);
  const Bf16DeviceOperands k12_in(k12);
  EXPECT_NE(sm90::wgmma_gemm_refusal(k12_in.op).find("K = 12 is not a multiple of 8 in bf16"), std::string::npos)
      << sm90::wgmma_gemm_refusal(k12_in.op);
  EXPECT_THROW(run_wgmma_bf16(k12_c, k12_in, false), std::invalid_argument);
  DeviceProblem off_c(aligned_k);
  const Bf16DeviceOperands off_in(aligned_k, 4);  // 8 bytes past a 16-byte boundary
  EXPECT_NE(sm90::wgmma_gemm_refusal(off_in.op).find("16-byte boundary"), std::string::npos);
  EXPECT_THROW(run_wgmma_bf16(off_c, off_in, false), std::invalid_argument);
}

// Both overlaps in both orders with a CTA per tile; persistent and ping-pong, both overlaps in the
// grouped order.
INSTANTIATE_TEST_SUITE_P(
    Schedule, WgmmaGemm,
    testing::Values(Schedule{MmaOverlap::none, TileOrder::m_fastest, WgmmaGrid::cta_per_tile},
                    Schedule{MmaOverlap::one_group, TileOrder::m_fastest, WgmmaGrid::cta_per_tile},
                    Schedule{MmaOverlap::none, TileOrder::grouped, WgmmaGrid::cta_per_tile},
                    Schedule{MmaOverlap::one_group, TileOrder::grouped, WgmmaGrid::cta_per_tile},
                    Schedule{MmaOverlap::none, TileOrder::grouped, WgmmaGrid::persistent},
                    Schedule{MmaOverlap::one_group, TileOrder::grouped, WgmmaGrid::persistent},
                    Schedule{MmaOverlap::none, TileOrder::grouped, WgmmaGrid::pingpong},
                    Schedule{MmaOverlap::one_group, TileOrder::grouped, WgmmaGrid::pingpong},
                    Schedule{MmaOverlap::none, TileOrder::grouped, WgmmaGrid::pingpong_pair},
                    Schedule{MmaOverlap::one_group, TileOrder::grouped, WgmmaGrid::pingpong_pair}),
    [](const testing::TestParamInfo<Schedule>& info) {
      return std::string(std::get<0>(info.param) == MmaOverlap::none ? "none" : "one_group") +
             (std::get<1>(info.param) == TileOrder::m_fastest ? "_m_fastest" : "_grouped") +
             (std::get<2>(info.param) == WgmmaGrid::persistent ? "_persistent"
              : std::get<2>(info.param) == WgmmaGrid::pingpong ? "_pingpong"
              : std::get<2>(info.param) == WgmmaGrid::pingpong_pair ? "_pingpong_pair"
                                                                     : "");
    });

}  // namespace
}  // namespace nb::gemm
