// WarpClusterExchange (kernels/primitives/warp_cluster_exchange.cuh) on its own: every warp of
// every CTA of a cluster pushes one value a round, and every thread folds the round's values. Over
// a thousand rounds (the buffers wrap hundreds of times) on clusters of 2-16 CTAs of 1, 3 and 16
// warps, on two buffers (each round received before the next is pushed) and on four (a round
// pushed before the last one is received): each round's total is the same bits in every thread of
// the cluster, equals the exact sum of small integers, and comes within float rounding of a
// float64 sum of random values; a maximum over negative values never sees the zeros of slots
// nobody pushed (the identity stands in where a lane has no slot).
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "harness/cuda_check.hpp"
#include "harness/device_buffer.hpp"
#include "kernels/primitives/cluster_launch.hpp"
#include "kernels/primitives/reduce.cuh"
#include "kernels/primitives/warp_cluster_exchange.cuh"

namespace nb::test {
namespace {

constexpr int kMaxWarps = 16, kMaxRanks = 16, kRounds = 1000;

enum class Fold { sum, max };

// values[(round * ranks + rank) * warps + warp]: what each warp pushes; out[(round * ranks + rank) *
// threads + thread]: the total each thread folds.
template <int kBuffers, Fold kFold>
__global__ void exchange_rounds(const float* values, float* out, int rounds) {
  __shared__ dev::WarpClusterExchange<float, kMaxWarps, kMaxRanks, kBuffers> exchange;
  const int ranks = int(cooperative_groups::this_cluster().num_blocks());
  const int rank = int(cooperative_groups::this_cluster().block_rank());
  const int warps = int(blockDim.x >> 5), warp = int(threadIdx.x >> 5);
  exchange.enter(ranks);
  const auto push = [&](int round) {
    exchange.send(values[(round * ranks + rank) * warps + warp], unsigned(round), ranks, warps);
  };
  const auto total = [&](int round) {
    if constexpr (kFold == Fold::sum) {
      const float share = exchange.receive_lane_share(
          unsigned(round), ranks, warps, [](float& s, float next) { s += next; }, 0.0f);
      return dev::warp_reduce(share, dev::SumOp{});
    } else {
      const float share = exchange.receive_lane_share(
          unsigned(round), ranks, warps, [](float& m, float next) { m = fmaxf(m, next); }, -FLT_MAX);
      return dev::warp_reduce(share, dev::MaxOp{});
    }
  };
  if (kBuffers == 4) push(0);
  for (int round = 0; round < rounds; ++round) {
    if (kBuffers == 4) {
      if (round + 1 < rounds) push(round + 1);  // one round ahead of the one received
    } else {
      push(round);
    }
    out[(std::size_t(round) * ranks + rank) * blockDim.x + threadIdx.x] = total(round);
  }
  exchange.leave(ranks);
}

struct ExchangeCase {
  int ranks, warps, buffers;
};

std::string case_name(const testing::TestParamInfo<ExchangeCase>& info) {
  return "ranks" + std::to_string(info.param.ranks) + "_warps" + std::to_string(info.param.warps) + "_buffers" +
         std::to_string(info.param.buffers);
}

template <int kBuffers, Fold kFold>
std::vector<float> run_rounds(const ExchangeCase& c, const std::vector<float>& values) {
  const auto kernel = exchange_rounds<kBuffers, kFold>;
  if (c.ranks > 8) NB_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  DeviceBuffer in(values.size() * sizeof(float));
  const std::size_t threads = std::size_t(c.warps) * 32, count = std::size_t(kRounds) * c.ranks * threads;
  DeviceBuffer out(count * sizeof(float));
  NB_CUDA_CHECK(cudaMemcpy(in.get(), values.data(), in.bytes(), cudaMemcpyHostToDevice));
  cudaLaunchAttribute attribute;
  const cudaLaunchConfig_t config =
      cluster_launch_config(dim3(unsigned(c.ranks)), dim3(unsigned(threads)), 0, nullptr, unsigned(c.ranks), true, attribute);
  int clusters = 0;
  NB_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&clusters, kernel, &config));
  if (clusters < 1) return {};
  NB_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, in.as<const float>(), out.as<float>(), kRounds));
  NB_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> totals(count);
  NB_CUDA_CHECK(cudaMemcpy(totals.data(), out.get(), out.bytes(), cudaMemcpyDeviceToHost));
  return totals;
}

template <Fold kFold>
std::vector<float> run(const ExchangeCase& c, const std::vector<float>& values) {
  return c.buffers == 4 ? run_rounds<4, kFold>(c, values) : run_rounds<2, kFold>(c, values);
}

// Every thread of every CTA of each round holds the same bits; returns each round's total.
std::vector<float> same_in_every_thread(const std::vector<float>& totals, const ExchangeCase& c) {
  const std::size_t per_round = std::size_t(c.ranks) * c.warps * 32;
  std::vector<float> rounds(kRounds);
  for (int r = 0; r < kRounds; ++r) {
    rounds[r] = totals[r * per_round];
    for (std::size_t i = 1; i < per_round; ++i)
      if (std::memcmp(&totals[r * per_round + i], &rounds[r], sizeof(float)) != 0) {
        ADD_FAILURE() << "round " << r << ": thread " << i << " holds " << totals[r * per_round + i] << ", thread 0 "
                      << rounds[r];
        return rounds;
      }
  }
  return rounds;
}

class WarpClusterExchangeRounds : public testing::TestWithParam<ExchangeCase> {};

TEST_P(WarpClusterExchangeRounds, EveryRoundSumsEveryWarpOfEveryCta) {
  const ExchangeCase c = GetParam();
  const std::size_t per_round = std::size_t(c.ranks) * c.warps;
  std::mt19937 rng(1234u + unsigned(c.ranks * 100 + c.warps * 10 + c.buffers));
  std::uniform_int_distribution<int> small(-1000, 1000);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  // Small integers, whose float sums are exact in any order; then random values.
  std::vector<float> integers(kRounds * per_round), randoms(kRounds * per_round);
  for (float& v : integers) v = float(small(rng));
  for (float& v : randoms) v = normal(rng);
  for (const std::vector<float>* values : {&integers, &randoms}) {
    const std::vector<float> totals = run<Fold::sum>(c, *values);
    if (totals.empty()) GTEST_SKIP() << "no cluster of " << c.ranks << " CTAs runs on this device";
    const std::vector<float> rounds = same_in_every_thread(totals, c);
    for (int r = 0; r < kRounds; ++r) {
      double exact = 0.0, magnitude = 0.0;
      for (std::size_t i = 0; i < per_round; ++i) {
        exact += (*values)[r * per_round + i];
        magnitude += std::fabs((*values)[r * per_round + i]);
      }
      if (values == &integers)
        ASSERT_EQ(double(rounds[r]), exact) << "round " << r;
      else
        ASSERT_NEAR(double(rounds[r]), exact, 1e-6 * magnitude + 1e-30) << "round " << r;
    }
  }
}

TEST_P(WarpClusterExchangeRounds, AMaximumOfNegativeValuesIgnoresEmptySlots) {
  const ExchangeCase c = GetParam();
  const std::size_t per_round = std::size_t(c.ranks) * c.warps;
  std::mt19937 rng(99u + unsigned(c.ranks * 100 + c.warps));
  std::uniform_real_distribution<float> negative(-100.0f, -1.0f);
  std::vector<float> values(kRounds * per_round);
  for (float& v : values) v = negative(rng);
  const std::vector<float> totals = run<Fold::max>(c, values);
  if (totals.empty()) GTEST_SKIP() << "no cluster of " << c.ranks << " CTAs runs on this device";
  const std::vector<float> rounds = same_in_every_thread(totals, c);
  for (int r = 0; r < kRounds; ++r) {
    float expected = -FLT_MAX;
    for (std::size_t i = 0; i < per_round; ++i) expected = std::fmax(expected, values[r * per_round + i]);
    ASSERT_EQ(rounds[r], expected) << "round " << r;
  }
}

INSTANTIATE_TEST_SUITE_P(Primitives, WarpClusterExchangeRounds,
                         testing::Values(ExchangeCase{2, 1, 2}, ExchangeCase{2, 16, 2}, ExchangeCase{4, 3, 2},
                                         ExchangeCase{8, 16, 2}, ExchangeCase{16, 16, 2}, ExchangeCase{16, 3, 2},
                                         ExchangeCase{2, 1, 4}, ExchangeCase{4, 16, 4}, ExchangeCase{8, 3, 4},
                                         ExchangeCase{16, 16, 4}),
                         case_name);

}  // namespace
}  // namespace nb::test
