// layernorm_rows: the float64 reference (y, mean, rstd) against plain long-double loops (odd shapes,
// N = 1, every distribution, fp32 and narrow storage, NaN/Inf placement), the spec's problems, byte
// model and condition, and the verdicts the stress design promises, judged through the harness's
// own tolerances: fp32 stand-ins of register_row (mean, then squared deviations) and welford pass
// what they claim, sum/sum-of-squares fails `offset`, wrong statistics fail.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "loop_match.hpp"
#include "reference_trial.hpp"
#include "harness/errors.hpp"
#include "harness/narrow_float.hpp"
#include "harness/op_spec.hpp"
#include "harness/validation/compare.hpp"
#include "harness/validation/trial_tolerance.hpp"
#include "kernels/rows/layernorm_rows/spec.hpp"
#include "kernels/ops.hpp"

namespace nb {
namespace {

using namespace layernorm_rows;

const std::vector<Distribution> kDistributions = {Distribution::uniform01, Distribution::normal,
                                                  Distribution::offset,    Distribution::tiny_var,
                                                  Distribution::wide,      Distribution::special};

using Trial = test::ReferenceTrial;

struct LoopResult {
  std::vector<long double> y, mean, rstd;
};

// The textbook formula in long double, one row at a time.
LoopResult layernorm_loop(const HostTensors& in, std::int64_t m, std::int64_t n, long double eps) {
  LoopResult r{std::vector<long double>(in[X].size()), std::vector<long double>(m), std::vector<long double>(m)};
  for (std::int64_t row = 0; row < m; ++row) {
    const float* x = in[X].data() + row * n;
    long double sum = 0, dev2 = 0;
    for (std::int64_t j = 0; j < n; ++j) sum += x[j];
    const long double mean = sum / n;
    for (std::int64_t j = 0; j < n; ++j) dev2 += (x[j] - mean) * (x[j] - mean);
    const long double rstd = 1.0L / std::sqrt(dev2 / n + eps);
    for (std::int64_t j = 0; j < n; ++j) r.y[row * n + j] = (x[j] - mean) * rstd * in[W][j] + in[B][j];
    r.mean[row] = mean;
    r.rstd[row] = rstd;
  }
  return r;
}

long double largest_finite_magnitude(const std::vector<float>& v) {
  long double big = 0;
  for (float x : v)
    if (std::isfinite(x)) big = std::max<long double>(big, std::fabs(x));
  return big;
}

class LayerNormRows : public testing::Test {
 protected:
  std::unique_ptr<OpSpec> op = make_layernorm_rows_op();
};

TEST_F(LayerNormRows, ReferenceMatchesLongDoubleLoopsOnOddShapes) {
  const std::vector<Params> shapes = {{{"m", 1}, {"n", 1}},   {{"m", 5}, {"n", 1}},    {{"m", 7}, {"n", 3}},
                                      {{"m", 3}, {"n", 1000}}, {{"m", 2}, {"n", 65}},  {{"m", 1}, {"n", 4097}},
                                      {{"m", 5}, {"n", 33}},   {{"m", 2}, {"n", 8}, {"eps", 0.5}}};
  for (const auto& params : shapes)
    for (DType type : {DType::f32, DType::bf16, DType::f16}) {
      const Problem p = op->make_problem(params, type);
      for (Distribution d : kDistributions) {
        const Trial t = test::reference_trial(*op, p, d, 11);
        const LoopResult want = layernorm_loop(t.in, p.dim("m"), p.dim("n"), p.real("eps"));
        const std::string what = p.id() + " " + distribution_name(d);
        // float64's own error: ~1e-16 of the largest |x| in the mean, times rstd in y.
        const long double x_max = largest_finite_magnitude(t.in[X]);
        long double rstd_max = 0;
        for (long double r : want.rstd)
          if (std::isfinite(r)) rstd_max = std::max(rstd_max, r);
        test::expect_matches_loop(t.ref[Y], want.y, 1e-12L + 1e-14L * x_max * rstd_max, what + " y");
        test::expect_matches_loop(t.ref[MEAN], want.mean, 1e-13L * x_max, what + " mean");
        test::expect_matches_loop(t.ref[RSTD], want.rstd, 0, what + " rstd");
      }
    }
}

// One value per row: variance 0, so y = b and rstd = 1/sqrt(eps), PyTorch's result for N = 1.
TEST_F(LayerNormRows, RowsOfOneValueGiveTheBias) {
  const Problem p = op->make_problem({{"m", 5}, {"n", 1}});
  const Trial t = test::reference_trial(*op, p, Distribution::normal, 3);
  for (std::int64_t row = 0; row < 5; ++row) {
    EXPECT_EQ(t.ref[Y][row], double(t.in[B][0]));
    EXPECT_EQ(t.ref[MEAN][row], double(t.in[X][row]));
    EXPECT_DOUBLE_EQ(t.ref[RSTD][row], 1.0 / std::sqrt(1e-5));
  }
}

// A NaN or an Inf poisons its row (y and rstd NaN, the mean NaN or the infinity) and no other row.
TEST_F(LayerNormRows, NonFiniteValuesStayInTheirRow) {
  const Problem p = op->make_problem({{"m", 5}, {"n", 4}});
  Trial t = test::reference_trial(*op, p, Distribution::normal, 5);
  const float inf = std::numeric_limits<float>::infinity();
  t.in[X][0 * 4 + 2] = std::numeric_limits<float>::quiet_NaN();
  t.in[X][1 * 4 + 0] = inf;
  t.in[X][2 * 4 + 3] = -inf;
  t.in[X][4 * 4 + 1] = inf, t.in[X][4 * 4 + 2] = -inf;
  op->reference(p, t.in, t.ref);
  for (std::int64_t row = 0; row < 5; ++row) {
    const bool poisoned = row != 3;
    for (std::int64_t j = 0; j < 4; ++j) EXPECT_EQ(std::isnan(t.ref[Y][row * 4 + j]), poisoned) << row << "," << j;
    EXPECT_EQ(std::isnan(t.ref[RSTD][row]), poisoned) << row;
    EXPECT_EQ(std::isfinite(t.ref[MEAN][row]), !poisoned) << row;
  }
  EXPECT_EQ(t.ref[MEAN][1], double(inf));
  EXPECT_EQ(t.ref[MEAN][2], -double(inf));
  EXPECT_TRUE(std::isnan(t.ref[MEAN][0]) && std::isnan(t.ref[MEAN][4]));
}

TEST_F(LayerNormRows, HugeValuesDoNotOverflowInFloat64) {
  const Problem p = op->make_problem({{"m", 1}, {"n", 2}});
  Trial t = test::reference_trial(*op, p, Distribution::normal, 1);
  t.in[X] = {3e20f, -4e20f};
  t.in[W] = {1.0f, 2.0f};
  t.in[B] = {0.0f, 0.5f};
  op->reference(p, t.in, t.ref);
  const double a = 3e20f, b = -4e20f;  // the floats nearest 3e20 and -4e20
  const double mean = (a + b) / 2, deviation = (a - b) / 2;  // both values sit (a - b) / 2 from the mean
  EXPECT_NEAR(t.ref[MEAN][0], mean, 1e-12 * std::fabs(mean));
  EXPECT_NEAR(t.ref[RSTD][0] * deviation, 1.0, 1e-12);
  EXPECT_NEAR(t.ref[Y][0], 1.0, 1e-12);
  EXPECT_NEAR(t.ref[Y][1], -2.0 + 0.5, 1e-12);
}

TEST_F(LayerNormRows, TensorsKeepStatisticsInFp32WhateverTheStorage) {
  for (DType type : {DType::f32, DType::bf16, DType::f16}) {
    const auto decls = op->tensors(op->make_problem({{"m", 3}, {"n", 7}}, type));
    ASSERT_EQ(decls.size(), 6u);
    const std::vector<std::string> names = {"x", "w", "b", "y", "mean", "rstd"};
    for (int i = 0; i < 6; ++i) {
      EXPECT_EQ(decls[i].name, names[i]);
      EXPECT_EQ(decls[i].dtype, i < MEAN ? storage_type(type) : DType::f32) << names[i];
    }
    EXPECT_EQ(decls[X].shape, (std::vector<std::int64_t>{3, 7}));
    EXPECT_EQ(decls[MEAN].elements, 3);
    EXPECT_EQ(decls[Y].role, TensorRole::output);
    EXPECT_EQ(decls[RSTD].role, TensorRole::output);
  }
}

std::string usage_error(const OpSpec& op, const Params& p, DType type = DType::f32) {
  try {
    op.make_problem(p, type);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "no error";
}

TEST_F(LayerNormRows, BadParametersAreUsageErrorsThatSayWhy) {
  EXPECT_NE(usage_error(*op, {{"m", 4}}).find("'n' is required"), std::string::npos);
  EXPECT_NE(usage_error(*op, {{"m", 0}, {"n", 4}}).find("'m' = 0 is out of range"), std::string::npos);
  EXPECT_NE(usage_error(*op, {{"m", 4}, {"n", 2.5}}).find("'n' must be an integer"), std::string::npos);
  EXPECT_NE(usage_error(*op, {{"m", 4}, {"n", 4}, {"eps", 2}}).find("'eps'"), std::string::npos);
  EXPECT_NE(usage_error(*op, {{"m", 1e7}, {"n", 1e6}}).find("more than 2^40"), std::string::npos);
  EXPECT_NE(usage_error(*op, {{"m", 4}, {"n", 4}}, DType::tf32).find("not supported"), std::string::npos);
  EXPECT_THROW(op->parse_problem_id("layernorm_rows/m4_n1.5/bf16"), UsageError);
  EXPECT_EQ(usage_error(*op, {{"m", 4}, {"n", 4}}, DType::f16), "no error");
}

TEST_F(LayerNormRows, NamedProblemsRoundTripAndAreUnique) {
  std::set<std::string> ids;
  for (const Problem& p : op->problems_in("")) {
    EXPECT_EQ(op->parse_problem_id(p.id()).id(), p.id());
    EXPECT_TRUE(ids.insert(p.id()).second) << "listed twice: " << p.id();
  }
  EXPECT_EQ(op->make_problem({{"m", 4096}, {"n", 4096}}, DType::bf16).id(), "layernorm_rows/m4096_n4096/bf16");
}

TEST_F(LayerNormRows, QuickSuiteHasTheOddLengthsInEveryTypeUnder2MElements) {
  std::set<std::int64_t> lengths;
  std::map<DType, int> per_type;
  for (const Problem& p : op->problems_in("quick")) {
    const std::int64_t m = p.dim("m"), n = p.dim("n");
    EXPECT_LT(m * n, 2000000) << p.id();
    EXPECT_TRUE(m >= 4 || 4 * n >= 2000000) << p.id() << ": fewer than 4 rows where 4 would fit";
    lengths.insert(n);
    ++per_type[p.dtype];
  }
  for (std::int64_t n : {1, 3, 31, 33, 1000, 4097, 20000, 65537, 131072, 262147})
    EXPECT_EQ(lengths.count(n), 1u) << "N = " << n;
  ASSERT_EQ(per_type.size(), 3u);
  EXPECT_EQ(per_type[DType::f32], per_type[DType::bf16]);
  EXPECT_EQ(per_type[DType::f32], per_type[DType::f16]);
}

TEST_F(LayerNormRows, LlmSuiteHoldsTheShapesInEveryTypeAndTheBf16Sweep) {
  std::set<std::string> llm;
  for (const Problem& p : op->problems_in("llm")) llm.insert(p.id());
  for (const char* shape : {"m4096_n4096", "m32768_n8192", "m16384_n16384"})
    for (const char* type : {"fp32", "bf16", "fp16"})
      EXPECT_EQ(llm.count(std::string("layernorm_rows/") + shape + "/" + type), 1u) << shape << " " << type;

  std::vector<std::int64_t> sweep;
  for (const Problem& p : op->problems_in("sweep")) {
    EXPECT_EQ(p.dtype, DType::bf16) << p.id();
    EXPECT_EQ(p.dim("m") * p.dim("n"), std::int64_t(1) << 28) << p.id();
    EXPECT_EQ(llm.count(p.id()), 1u) << p.id() << " is in the sweep but not in llm";
    sweep.push_back(p.dim("n"));
  }
  std::vector<std::int64_t> want;
  for (std::int64_t n = 256; n <= 262144; n *= 2) want.push_back(n);
  EXPECT_EQ(sweep, want);
}

TEST_F(LayerNormRows, ByteModelCountsEachTensorOnceInItsStorage) {
  const double m = 4096, n = 4096;
  const auto bytes = [&](DType type) { return op->work(op->make_problem({{"m", m}, {"n", n}}, type)).bytes; };
  EXPECT_DOUBLE_EQ(bytes(DType::f32), 4 * (2 * m * n + 2 * n) + 8 * m);
  EXPECT_DOUBLE_EQ(bytes(DType::bf16), 2 * (2 * m * n + 2 * n) + 8 * m);
  EXPECT_DOUBLE_EQ(bytes(DType::f16), 2 * (2 * m * n + 2 * n) + 8 * m);
  EXPECT_DOUBLE_EQ(op->reduction_length(op->make_problem({{"m", 3}, {"n", 777}})), 777.0);
}

TEST_F(LayerNormRows, ConditionIsHowFarTheMeanSitsFromTheSpread) {
  const Problem fp32 = op->make_problem({{"m", 6}, {"n", 999}});
  const Trial offset = test::reference_trial(*op, fp32, Distribution::offset, 1);
  EXPECT_GT(op->condition(fp32, offset.in), 5e3);  // 1e4 + N(0,1): |mean| * rstd ~ 1e4
  EXPECT_LT(op->condition(fp32, offset.in), 2e4);
  const Trial uniform = test::reference_trial(*op, fp32, Distribution::uniform01, 1);
  EXPECT_NEAR(op->condition(fp32, uniform.in), 2.0, 0.2);  // sqrt(1 + (0.5 / 0.289)^2)
  const Trial normal = test::reference_trial(*op, fp32, Distribution::normal, 1);
  EXPECT_LT(op->condition(fp32, normal.in), 1.1);

  const Problem bf16 = op->make_problem({{"m", 6}, {"n", 999}}, DType::bf16);
  const Trial narrow_offset = test::reference_trial(*op, bf16, Distribution::offset, 1);  // 1e3 + 8 N(0,1)
  EXPECT_GT(op->condition(bf16, narrow_offset.in), 60.0);
  EXPECT_LT(op->condition(bf16, narrow_offset.in), 250.0);
}

TEST_F(LayerNormRows, StressListsWhereSumOfSquaresFailsAndWhoClaimsIt) {
  std::set<Distribution> stress;
  for (const auto& s : op->stress()) {
    stress.insert(s.distribution);
    EXPECT_FALSE(s.reason.empty());
  }
  EXPECT_EQ(stress, (std::set<Distribution>{Distribution::offset, Distribution::tiny_var, Distribution::wide}));
  ASSERT_EQ(op->variants().size(), 6u);
  const std::vector<std::string> names = {"naive", "smem", "warp", "welford", "register_row", "cudnn"};
  for (std::size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(op->variants()[i]->name(), names[i]);
    EXPECT_FALSE(op->variants()[i]->idea().empty());
  }
  const auto claims = [&](int i) {
    const auto c = op->variants()[i]->claims();
    return std::set<Distribution>(c.begin(), c.end());
  };
  EXPECT_TRUE(claims(1).empty()) << "smem sums squares in fp32";
  EXPECT_TRUE(claims(2).empty()) << "warp sums squares in fp32";
  EXPECT_EQ(claims(3), (std::set<Distribution>{Distribution::offset, Distribution::tiny_var}));
  EXPECT_EQ(claims(4), stress);
  EXPECT_EQ(claims(0), stress) << "naive sums in double";
  EXPECT_TRUE(claims(5).empty()) << "cuDNN promises nothing on the stress distributions";
}

// ---- Verdicts through the harness's tolerances, with fp32 stand-ins of the kernels ----

struct RowStats {
  float mean, rstd;
};

using RowStatistics = RowStats (*)(const float* x, std::int64_t n, float eps);

// Pairwise, as butterflies and trees add threads' partial sums: parts[i] += parts[i + half].
float tree_sum(std::vector<float> parts) {
  while (parts.size() > 1) {
    const std::size_t half = (parts.size() + 1) / 2;
    for (std::size_t i = 0; i + half < parts.size(); ++i) parts[i] += parts[i + half];
    parts.resize(half);
  }
  return parts.empty() ? 0.0f : parts[0];
}

// sum over threads of 64 consecutive values each of f(x[j]), each thread's in order, then a tree.
template <class F>
float threads_sum(const float* x, std::int64_t n, F f) {
  std::vector<float> threads;
  for (std::int64_t j0 = 0; j0 < n; j0 += 64) {
    float part = 0;
    for (std::int64_t j = j0; j < std::min(n, j0 + 64); ++j) part += f(x[j]);
    threads.push_back(part);
  }
  return tree_sum(threads);
}

// register_row in fp32: the mean, then the squares of the deviations from it; when they overflow,
// the deviations scaled by a power of two (row_inv_rms's rescue).
RowStats register_row_stats(const float* x, std::int64_t n, float eps) {
  const float inv_n = 1.0f / static_cast<float>(n);
  const float mean = threads_sum(x, n, [](float v) { return v; }) * inv_n;
  const float sq = threads_sum(x, n, [&](float v) { return (v - mean) * (v - mean); });
  if (sq <= std::numeric_limits<float>::max()) return {mean, 1.0f / std::sqrt(sq * inv_n + eps)};
  float max_abs = 0;
  for (std::int64_t j = 0; j < n; ++j) max_abs = std::fmax(max_abs, std::fabs(x[j] - mean));
  int e = 0;
  std::frexp(max_abs, &e);
  const float scale = std::isfinite(max_abs) && e > 0 ? std::ldexp(1.0f, -e) : 1.0f;
  const float scaled = threads_sum(x, n, [&](float v) { return ((v - mean) * scale) * ((v - mean) * scale); });
  return {mean, scale / std::sqrt(scaled * inv_n + eps * scale * scale)};
}

struct Moments {
  float count = 0, mean = 0, m2 = 0;

  void add(float v) {
    count += 1;
    const float delta = v - mean;
    mean += delta / count;
    m2 += delta * (v - mean);
  }
};

Moments chan_merge(Moments a, const Moments& b) {
  if (b.count == 0) return a;
  if (a.count == 0) return b;
  const float n = a.count + b.count, delta = b.mean - a.mean, w = b.count / n;
  a.mean += delta * w;
  a.m2 += b.m2 + delta * delta * a.count * w;
  a.count = n;
  return a;
}

// welford in fp32: 256 threads take every 256th value, Chan merges them pairwise.
RowStats welford_stats(const float* x, std::int64_t n, float eps) {
  std::vector<Moments> threads(256);
  for (std::int64_t j = 0; j < n; ++j) threads[j % 256].add(x[j]);
  while (threads.size() > 1) {
    const std::size_t half = threads.size() / 2;
    for (std::size_t i = 0; i < half; ++i) threads[i] = chan_merge(threads[i], threads[i + half]);
    threads.resize(half);
  }
  return {threads[0].mean, 1.0f / std::sqrt(threads[0].m2 / threads[0].count + eps)};
}

// smem / warp in fp32: sum and sum of squares, var = E[x^2] - mean^2.
RowStats sum_of_squares_stats(const float* x, std::int64_t n, float eps) {
  float sum = 0, sq = 0;
  for (std::int64_t j = 0; j < n; ++j) sum += x[j], sq += x[j] * x[j];
  const float mean = sum / static_cast<float>(n);
  float var = sq / static_cast<float>(n) - mean * mean;
  if (var < 0) var = 0;
  return {mean, 1.0f / std::sqrt(var + eps)};
}

// What a kernel with these statistics writes: y in fp32, rounded to the storage type.
HostTensors run_stand_in(const Trial& t, RowStatistics stats) {
  const std::int64_t m = t.p.dim("m"), n = t.p.dim("n");
  HostTensors out = allocate_host_results(t.decls);
  for (std::int64_t row = 0; row < m; ++row) {
    const float* x = t.in[X].data() + row * n;
    const RowStats s = stats(x, n, static_cast<float>(t.p.real("eps")));
    for (std::int64_t j = 0; j < n; ++j)
      out[Y][row * n + j] = round_to_storage((x[j] - s.mean) * s.rstd * t.in[W][j] + t.in[B][j], t.decls[Y].dtype);
    out[MEAN][row] = s.mean;
    out[RSTD][row] = s.rstd;
  }
  return out;
}

TrialJudgement judge(const OpSpec& op, const Trial& t, const HostTensors& out) {
  const TrialTolerances tol = trial_tolerances(op, t.p, t.decls, t.in, t.ref);
  return judge_trial(t.decls, out, t.ref, [&](int i) { return tol.per_tensor.at(static_cast<std::size_t>(i)); },
                     false);
}

// What the variants claim holds for their algorithms in fp32: register_row passes every
// distribution (wide through its rescaling), welford every one but `wide`.
TEST_F(LayerNormRows, RegisterRowAndWelfordStandInsPassWhatTheyClaimInEveryType) {
  for (const Params& shape : {Params{{"m", 5}, {"n", 1000}}, Params{{"m", 4}, {"n", 4097}}, Params{{"m", 7}, {"n", 3}},
                              Params{{"m", 4}, {"n", 65537}}})
    for (DType type : {DType::f32, DType::bf16, DType::f16}) {
      const Problem p = op->make_problem(shape, type);
      for (Distribution d : kDistributions)
        for (std::uint64_t seed : {1u, 2u, 3u}) {
          const Trial t = test::reference_trial(*op, p, d, seed);
          const std::string what = p.id() + " " + distribution_name(d) + " seed " + std::to_string(seed) + ": ";
          const TrialJudgement register_row = judge(*op, t, run_stand_in(t, register_row_stats));
          EXPECT_TRUE(register_row.passed) << what << register_row.failure;
          if (d == Distribution::wide && type != DType::f16) continue;  // fp16's wide stays below 1e5
          const TrialJudgement welford = judge(*op, t, run_stand_in(t, welford_stats));
          EXPECT_TRUE(welford.passed) << what << welford.failure;
        }
    }
}

TEST_F(LayerNormRows, SumOfSquaresPassesCountedDistributionsButFailsOffset) {
  const Problem p = op->make_problem({{"m", 5}, {"n", 1000}});
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    for (Distribution d : {Distribution::uniform01, Distribution::normal, Distribution::special}) {
      const Trial t = test::reference_trial(*op, p, d, seed);
      const TrialJudgement j = judge(*op, t, run_stand_in(t, sum_of_squares_stats));
      EXPECT_TRUE(j.passed) << distribution_name(d) << ": " << j.failure;
    }
    const Trial offset = test::reference_trial(*op, p, Distribution::offset, seed);
    EXPECT_FALSE(judge(*op, offset, run_stand_in(offset, sum_of_squares_stats)).passed);
  }
}

// The statistics are checked, not only y: the unbiased variance (N - 1), a mean that is off by
// one value in N, or an unwritten rstd fail; so does an all-zero y.
TEST_F(LayerNormRows, WrongStatisticsFail) {
  const Problem p = op->make_problem({{"m", 6}, {"n", 1000}}, DType::bf16);
  const Trial t = test::reference_trial(*op, p, Distribution::normal, 4);
  const HostTensors good = run_stand_in(t, register_row_stats);
  ASSERT_TRUE(judge(*op, t, good).passed) << judge(*op, t, good).failure;

  HostTensors unbiased = good;
  for (float& r : unbiased[RSTD]) r *= std::sqrt(999.0f / 1000.0f);
  const TrialJudgement j = judge(*op, t, unbiased);
  EXPECT_FALSE(j.passed);
  EXPECT_NE(j.failure.find("rstd"), std::string::npos) << j.failure;

  HostTensors shifted = good;
  for (float& m : shifted[MEAN]) m += 1.0f / 1000.0f;
  EXPECT_FALSE(judge(*op, t, shifted).passed);

  HostTensors unwritten = good;
  unwritten[RSTD][2] = poison_value();
  EXPECT_FALSE(judge(*op, t, unwritten).passed);

  HostTensors zeros = good;
  std::fill(zeros[Y].begin(), zeros[Y].end(), 0.0f);
  EXPECT_FALSE(judge(*op, t, zeros).passed);
}

}  // namespace
}  // namespace nb
