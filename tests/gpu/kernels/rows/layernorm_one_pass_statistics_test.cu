// layernorm_rows' statistics in one pass (row_mean_rstd_one_pass, row_math.cuh): the sums of x and
// of x^2, M2 from them only where the guard bounds their rounding. One block reduces a crafted row
// beside row_mean_rstd (the two passes) and a float64 reference: within the stated bound where the
// mean is near zero against the spread, and row_mean_rstd's own results where it is not (the
// guard's fallback), for a constant row, or where the row holds a NaN or an Inf; and which path
// each row took (the fallback asks for the deviations from the mean), so a guard that never holds,
// or always does, fails here.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "harness/cuda_check.hpp"
#include "harness/device_buffer.hpp"
#include "kernels/rows/layernorm_rows/row_math.cuh"

namespace nb::test {
namespace {

constexpr int kThreads = 256;
constexpr int kN = 16384;
constexpr float kEps = 1e-5f;

// out: the one-pass statistics' mean and rstd, row_mean_rstd's, and 1 where the one pass kept its
// M2 (it never asked for the deviations from the mean: each_centered not called), else 0. The sums
// are shifted by the mean of the row's first two values (the held rows' shift) or by 0 (the staged
// rows').
__global__ void both_statistics(const float* x, int n, bool shifted, float* out) {
  __shared__ float scratch[32];
  __shared__ rows::RowExchange exchange;
  __shared__ bool deviations_taken;
  rows::BlockReducer reduce(scratch, exchange, 1);
  if (threadIdx.x == 0) deviations_taken = false;
  __syncthreads();
  const auto each_pack = [&](auto f) {
    for (int i = threadIdx.x; i < n; i += blockDim.x) f(dev::FloatPack<1>{{x[i]}});
  };
  const auto each_pack_mine = [&](auto f) { each_pack([&](const dev::FloatPack<1>& v) { f(v, true); }); };
  const auto each_centered = [&](float mean, auto f) {
    each_pack([&](const dev::FloatPack<1>& v) { f(layernorm_rows::centered(v, mean)); });
  };
  const auto each_centered_noted = [&](float mean, auto f) {
    if (threadIdx.x == 0) deviations_taken = true;  // every thread calls it, or none
    each_centered(mean, f);
  };
  const float inv_n = 1.0f / float(n), shift = shifted ? (x[0] + x[1]) * 0.5f : 0.0f;
  const layernorm_rows::MeanRstd one_pass = layernorm_rows::row_mean_rstd_one_pass<1>(
      each_pack_mine, each_centered_noted, reduce, shift, float(n), inv_n, kEps);
  __syncthreads();
  const bool kept = !deviations_taken;
  const layernorm_rows::MeanRstd plain =
      layernorm_rows::row_mean_rstd<1>(each_pack, each_centered, reduce, float(n), inv_n, kEps);
  if (threadIdx.x == 0) {
    out[0] = one_pass.mean;
    out[1] = one_pass.rstd;
    out[2] = plain.mean;
    out[3] = plain.rstd;
    out[4] = kept ? 1.0f : 0.0f;
  }
}

struct Statistics {
  float mean, rstd, plain_mean, plain_rstd;
  bool one_pass;  // the guard kept the one pass's M2
};

Statistics run(const std::vector<float>& row, bool shifted = false) {
  DeviceBuffer x(row.size() * sizeof(float)), out(5 * sizeof(float));
  NB_CUDA_CHECK(cudaMemcpy(x.get(), row.data(), row.size() * sizeof(float), cudaMemcpyHostToDevice));
  both_statistics<<<1, kThreads>>>(x.as<float>(), static_cast<int>(row.size()), shifted, out.as<float>());
  NB_CUDA_CHECK(cudaGetLastError());
  float host[5];
  NB_CUDA_CHECK(cudaMemcpy(host, out.get(), sizeof(host), cudaMemcpyDeviceToHost));
  return {host[0], host[1], host[2], host[3], host[4] == 1.0f};
}

struct Reference {
  double mean, rstd, mean_abs;  // mean_abs: the mean of |x|, the scale of the sum's rounding
};

Reference reference(const std::vector<float>& row) {
  double sum = 0, sum_abs = 0;
  for (float v : row) {
    sum += v;
    sum_abs += std::abs(v);
  }
  const double mean = sum / double(row.size());
  double m2 = 0;
  for (float v : row) m2 += (v - mean) * (v - mean);
  return {mean, 1.0 / std::sqrt(m2 / double(row.size()) + kEps), sum_abs / double(row.size())};
}

// The comment's bound on the sums' rounding: g terms a thread plus the block's tree levels, 2^-24 each.
double rounding_terms() { return double(kN / kThreads) + 8 + 2; }

void expect_within_bound(const std::vector<float>& row, const std::string& what, bool shifted = false) {
  const Statistics s = run(row, shifted);
  const Reference r = reference(row);
  const double unit = std::ldexp(1.0, -24);
  EXPECT_TRUE(s.one_pass) << what;
  // M2 within 25 (g + 2) 2^-24 of itself: rstd within half of that, and eps only shrinks it.
  EXPECT_LE(std::abs(s.rstd - r.rstd) / r.rstd, 12.5 * rounding_terms() * unit + 4 * unit) << what;
  EXPECT_LE(std::abs(s.mean - r.mean), rounding_terms() * unit * r.mean_abs) << what;
}

std::vector<float> normal_row(float center, float spread, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> row(kN);
  for (float& v : row) v = center + spread * normal(gen);
  return row;
}

TEST(LayerNormOnePassStatistics, MeansNearZeroStayWithinTheBound) {
  for (const bool shifted : {false, true}) {
    expect_within_bound(normal_row(0.0f, 1.0f, 1), "normal", shifted);
    expect_within_bound(normal_row(2.0f, 1.0f, 2), "a mean of two deviations", shifted);
    expect_within_bound(normal_row(0.0f, 1e-3f, 3), "a spread of 1e-3", shifted);
  }
}

// A shift at the mean takes rows whose mean a shift of 0 cannot (four deviations out).
TEST(LayerNormOnePassStatistics, AShiftNearTheMeanStaysWithinTheBound) {
  std::vector<float> row = normal_row(4.0f, 1.0f, 8);
  row[0] = row[1] = 4.0f;
  expect_within_bound(row, "a mean of four deviations, shifted by 4", true);
}

void expect_plain_results(const std::vector<float>& row, const std::string& what, bool shifted = false) {
  const Statistics s = run(row, shifted);
  const Reference r = reference(row);
  EXPECT_FALSE(s.one_pass) << what;
  EXPECT_EQ(s.mean, s.plain_mean) << what;
  EXPECT_EQ(s.rstd, s.plain_rstd) << what;
  EXPECT_LE(std::abs(s.rstd - r.rstd) / r.rstd, 1e-5) << what;
}

// A mean large against the spread: sum(x^2) - n mean^2 would cancel (1000 +- 8: sum(x^2) is 1.6e10
// where M2 is 1e6, and fp32's spacing there is 1e3) and the mean's rounding would reach n mean^2
// magnified by the offset, so these rows take the squared deviations from the mean, row_mean_rstd's
// results; so does a mean of four deviations, past the guard's 2.8.
TEST(LayerNormOnePassStatistics, LargeMeansFallBackToTheDeviationsFromTheMean) {
  expect_plain_results(normal_row(1000.0f, 8.0f, 4), "offset 1000, spread 8");
  expect_plain_results(normal_row(1.0f, 1e-3f, 5), "offset 1, spread 1e-3");
  expect_plain_results(normal_row(4.0f, 1.0f, 7), "a mean of four deviations");
}

// The first two values far out: sum(d^2) is 1.5e13 where M2 is 1.8e9, so by fp32's spacing there
// (about 1e6) the one-pass M2 would keep about three digits; the guard sends the row to the squared
// deviations from the mean.
TEST(LayerNormOnePassStatistics, FarShiftsFallBackToTheDeviationsFromTheMean) {
  std::vector<float> row = normal_row(0.0f, 1.0f, 9);
  row[0] = row[1] = 3e4f;
  expect_plain_results(row, "the first two values 3e4", true);
}

TEST(LayerNormOnePassStatistics, AConstantRowHasNoVariance) {
  const Statistics s = run(std::vector<float>(kN, 2.5f));
  EXPECT_FALSE(s.one_pass);
  EXPECT_EQ(s.mean, 2.5f);
  EXPECT_FLOAT_EQ(s.rstd, 1.0f / std::sqrt(kEps));
}

// Squares past fp32's range: the rescaled path of row_mean_rstd, the same results.
TEST(LayerNormOnePassStatistics, OverflowingSquaresTakeTheRescaledPath) {
  std::vector<float> row = normal_row(0.0f, 1e20f, 5);
  const Statistics s = run(row);
  const Reference r = reference(row);
  EXPECT_FALSE(s.one_pass);
  EXPECT_EQ(s.mean, s.plain_mean);
  EXPECT_EQ(s.rstd, s.plain_rstd);
  EXPECT_LE(std::abs(s.rstd - r.rstd) / r.rstd, 1e-5);
}

// A NaN or an Inf anywhere: row_mean_rstd's results, bit for bit.
TEST(LayerNormOnePassStatistics, NonFiniteRowsKeepThePlainResults) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  for (const auto& [at, value] : std::vector<std::pair<int, float>>{{0, inf}, {1, -inf}, {100, inf}, {0, nan},
                                                                     {kN - 1, nan}}) {
    std::vector<float> row = normal_row(0.0f, 1.0f, 6);
    row[at] = value;
    const Statistics s = run(row);
    const std::string what = "x[" + std::to_string(at) + "] = " + std::to_string(value);
    EXPECT_FALSE(s.one_pass) << what;
    EXPECT_TRUE(s.mean == s.plain_mean || (std::isnan(s.mean) && std::isnan(s.plain_mean))) << what;
    EXPECT_TRUE(s.rstd == s.plain_rstd || (std::isnan(s.rstd) && std::isnan(s.plain_rstd))) << what;
  }
}

}  // namespace
}  // namespace nb::test
