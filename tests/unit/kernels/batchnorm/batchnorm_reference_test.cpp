// BatchNorm references and specs: the float64 references against plain long double loops and
// against finite differences, the running-stat update under judge_trial, and parameter checks.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "baselines/cpu/batchnorm_reference.hpp"
#include "harness/errors.hpp"
#include "harness/validation/compare.hpp"
#include "kernels/batchnorm/batchnorm_bwd/spec.hpp"
#include "kernels/batchnorm/batchnorm_train/spec.hpp"
#include "kernels/ops.hpp"

namespace nb::bn {
namespace {

using LD = long double;

Shape make_shape(std::int64_t n, std::int64_t c, std::int64_t hw) {
  Shape s;
  s.n = n, s.c = c, s.hw = hw, s.eps = 1e-5, s.momentum = 0.1;
  return s;
}

std::vector<float> drawn(std::int64_t count, Distribution d, std::uint32_t salt) {
  std::vector<float> v(static_cast<std::size_t>(count));
  draw(v, d, 7, salt);
  return v;
}

std::vector<float> uniform(std::int64_t count, float lo, float hi, std::uint32_t salt) {
  std::vector<float> v(static_cast<std::size_t>(count));
  draw_uniform(v, lo, hi, 7, salt);
  return v;
}

std::int64_t at(const Shape& s, std::int64_t n, std::int64_t c, std::int64_t i) { return (n * s.c + c) * s.hw + i; }

// Plain long double statistics of channel c: {mean, biased variance}.
std::pair<LD, LD> plain_moments(const Shape& s, const std::vector<float>& x, std::int64_t c) {
  LD sum = 0, sq = 0;
  for (std::int64_t n = 0; n < s.n; ++n)
    for (std::int64_t i = 0; i < s.hw; ++i) sum += x[at(s, n, c, i)];
  const LD mean = sum / s.count();
  for (std::int64_t n = 0; n < s.n; ++n)
    for (std::int64_t i = 0; i < s.hw; ++i) sq += (x[at(s, n, c, i)] - mean) * (x[at(s, n, c, i)] - mean);
  return {mean, sq / s.count()};
}

struct Fwd {
  std::vector<double> y, mean, invstd, rmean, rvar;
  explicit Fwd(const Shape& s) : y(s.elements()), mean(s.c), invstd(s.c), rmean(s.c), rvar(s.c) {}
  ForwardOutputs outputs() { return {y.data(), mean.data(), invstd.data(), rmean.data(), rvar.data()}; }
};

struct Inputs {
  std::vector<float> x, gamma, beta, rmean, rvar, dy;
  Inputs(const Shape& s, Distribution d)
      : x(drawn(s.elements(), d, 1)), gamma(uniform(s.c, 0.5f, 1.5f, 2)), beta(uniform(s.c, -0.5f, 0.5f, 3)),
        rmean(uniform(s.c, -1, 1, 4)), rvar(uniform(s.c, 0.5f, 1.5f, 5)), dy(drawn(s.elements(), Distribution::normal, 6)) {}
};

Fwd run_forward(const Shape& s, const Inputs& in) {
  Fwd f(s);
  forward_reference(s, in.x.data(), in.gamma.data(), in.beta.data(), in.rmean.data(), in.rvar.data(), f.outputs());
  return f;
}

class BatchNormShapes : public ::testing::TestWithParam<std::tuple<int, int, int>> {};

TEST_P(BatchNormShapes, ForwardMatchesLongDoubleLoops) {
  const auto [n, c, hw] = GetParam();
  const Shape s = make_shape(n, c, hw);
  const Inputs in(s, Distribution::normal);
  const Fwd f = run_forward(s, in);
  for (std::int64_t ch = 0; ch < s.c; ++ch) {
    const auto [mean, var] = plain_moments(s, in.x, ch);
    const LD invstd = 1 / std::sqrt(var + LD(s.eps));
    EXPECT_NEAR(f.mean[ch], double(mean), 1e-13);
    EXPECT_NEAR(f.invstd[ch], double(invstd), 1e-12 * double(invstd));
    EXPECT_NEAR(f.rmean[ch], double(LD(0.9) * in.rmean[ch] + LD(0.1) * mean), 1e-13);
    EXPECT_NEAR(f.rvar[ch], double(LD(0.9) * in.rvar[ch] + LD(0.1) * var * s.count() / (s.count() - 1)), 1e-12);
    for (std::int64_t b = 0; b < s.n; ++b)
      for (std::int64_t i = 0; i < s.hw; ++i) {
        const std::int64_t k = at(s, b, ch, i);
        const LD y = (in.x[k] - mean) * invstd * in.gamma[ch] + in.beta[ch];
        ASSERT_NEAR(f.y[k], double(y), 1e-12) << "n " << b << " c " << ch << " i " << i;
      }
  }
}

TEST_P(BatchNormShapes, BackwardMatchesLongDoubleLoops) {
  const auto [n, c, hw] = GetParam();
  const Shape s = make_shape(n, c, hw);
  const Inputs in(s, Distribution::uniform01);
  const Fwd f = run_forward(s, in);
  std::vector<float> mean(f.mean.begin(), f.mean.end()), invstd(f.invstd.begin(), f.invstd.end());
  std::vector<double> dx(s.elements()), dgamma(s.c), dbeta(s.c);
  backward_reference(s, in.x.data(), in.dy.data(), in.gamma.data(), mean.data(), invstd.data(),
                     {dx.data(), dgamma.data(), dbeta.data()});
  const LD M = s.count();
  for (std::int64_t ch = 0; ch < s.c; ++ch) {
    LD sdy = 0, sdyx = 0;
    auto xhat = [&](std::int64_t k) { return (LD(in.x[k]) - mean[ch]) * invstd[ch]; };
    for (std::int64_t b = 0; b < s.n; ++b)
      for (std::int64_t i = 0; i < s.hw; ++i) {
        sdy += in.dy[at(s, b, ch, i)];
        sdyx += in.dy[at(s, b, ch, i)] * xhat(at(s, b, ch, i));
      }
    EXPECT_NEAR(dbeta[ch], double(sdy), 1e-11);
    EXPECT_NEAR(dgamma[ch], double(sdyx), 1e-11);
    for (std::int64_t b = 0; b < s.n; ++b)
      for (std::int64_t i = 0; i < s.hw; ++i) {
        const std::int64_t k = at(s, b, ch, i);
        const LD want = invstd[ch] / M * in.gamma[ch] * (M * in.dy[k] - sdy - xhat(k) * sdyx);
        ASSERT_NEAR(dx[k], double(want), 1e-11);
      }
  }
}

INSTANTIATE_TEST_SUITE_P(Small, BatchNormShapes,
                         ::testing::Values(std::make_tuple(2, 3, 1), std::make_tuple(7, 5, 1), std::make_tuple(3, 2, 15),
                                           std::make_tuple(1, 4, 63), std::make_tuple(5, 1, 12)));

// loss = sum(y * dy): the backward reference is its gradient; check it against central
// differences of the forward reference in x, gamma and beta.
double loss(const Shape& s, const Inputs& in) {
  const Fwd f = run_forward(s, in);
  double l = 0;
  for (std::size_t k = 0; k < f.y.size(); ++k) l += f.y[k] * in.dy[k];
  return l;
}

double central_difference(const Shape& s, Inputs in, std::vector<float> Inputs::*field, std::size_t k) {
  const float v = (in.*field)[k], h = 1e-2f * std::max(1.0f, std::fabs(v));
  (in.*field)[k] = v + h;
  const float up = (in.*field)[k];
  const double lu = loss(s, in);
  (in.*field)[k] = v - h;
  const float down = (in.*field)[k];
  return (lu - loss(s, in)) / (double(up) - double(down));
}

TEST(BatchNormReference, BackwardMatchesFiniteDifferencesOfForward) {
  const Shape s = make_shape(3, 2, 4);
  const Inputs in(s, Distribution::normal);
  const Fwd f = run_forward(s, in);
  std::vector<float> mean(f.mean.begin(), f.mean.end()), invstd(f.invstd.begin(), f.invstd.end());
  std::vector<double> dx(s.elements()), dgamma(s.c), dbeta(s.c);
  backward_reference(s, in.x.data(), in.dy.data(), in.gamma.data(), mean.data(), invstd.data(),
                     {dx.data(), dgamma.data(), dbeta.data()});
  double scale = 0;
  for (double v : dx) scale = std::max(scale, std::fabs(v));
  for (std::size_t k = 0; k < dx.size(); ++k)
    EXPECT_NEAR(dx[k], central_difference(s, in, &Inputs::x, k), 2e-3 * scale) << "dx[" << k << "]";
  for (std::size_t c = 0; c < std::size_t(s.c); ++c) {
    EXPECT_NEAR(dgamma[c], central_difference(s, in, &Inputs::gamma, c), 1e-4 * (1 + std::fabs(dgamma[c])));
    EXPECT_NEAR(dbeta[c], central_difference(s, in, &Inputs::beta, c), 1e-4 * (1 + std::fabs(dbeta[c])));
  }
}

// The op spec's tensors for one trial, and the reference rounded to float as a perfect kernel's
// download.
struct Trial {
  std::unique_ptr<OpSpec> op = make_batchnorm_train_op();
  Problem p;
  std::vector<TensorDecl> decls;
  HostTensors in;
  ReferenceTensors ref;
  HostTensors out;

  explicit Trial(const Params& params, Distribution d = Distribution::normal) : p(op->make_problem(params)) {
    decls = op->tensors(p);
    in = allocate_host_inputs(decls);
    ref = allocate_references(decls);
    op->draw_inputs(p, d, 11, in);
    op->reference(p, in, ref);
    out.data.resize(decls.size());
    for (std::size_t i = 0; i < decls.size(); ++i)
      if (decls[i].role != TensorRole::input) out.data[i].assign(ref.data[i].begin(), ref.data[i].end());
  }
  TrialJudgement judge() const {
    return judge_trial(decls, out, ref, op->tolerance(p).scaled(op->condition(p, in)), false);
  }
};

std::vector<std::unique_ptr<OpSpec>> both_ops() {
  std::vector<std::unique_ptr<OpSpec>> ops;
  ops.push_back(make_batchnorm_train_op());
  ops.push_back(make_batchnorm_bwd_op());
  return ops;
}

TEST(BatchNormSpec, RunningVarianceMustUseTheUnbiasedVariance) {
  Trial t({{"n", 4}, {"c", 3}, {"h", 2}, {"w", 2}});
  ASSERT_TRUE(t.judge().passed) << t.judge().failure;
  const Shape s = shape_of(t.p);
  const ChannelMoments m = channel_moments(s, t.in[batchnorm_train::kX].data());
  for (std::int64_t c = 0; c < s.c; ++c)  // the planted bug: biased variance in the running update
    t.out[batchnorm_train::kRunningVar][c] = float(0.9 * t.in[batchnorm_train::kRunningVar][c] + 0.1 * m.var[c]);
  const TrialJudgement j = t.judge();
  EXPECT_FALSE(j.passed);
  EXPECT_NE(j.failure.find("running_var"), std::string::npos) << j.failure;
}

TEST(BatchNormSpec, RunningMeanWithoutMomentumFails) {
  Trial t({{"n", 8}, {"c", 5}});
  for (std::int64_t c = 0; c < 5; ++c) t.out[batchnorm_train::kRunningMean][c] = float(t.ref[batchnorm_train::kSaveMean][c]);
  EXPECT_FALSE(t.judge().passed);
}

TEST(BatchNormSpec, ConditionReflectsOffsetData) {
  Trial plain({{"n", 64}, {"c", 4}, {"h", 4}, {"w", 4}}, Distribution::uniform01);
  EXPECT_LT(plain.op->condition(plain.p, plain.in), 3.0);
  Trial off({{"n", 64}, {"c", 4}, {"h", 4}, {"w", 4}}, Distribution::offset);
  const double cond = off.op->condition(off.p, off.in);
  EXPECT_GT(cond, 5e3);
  EXPECT_LT(cond, 2e4);
}

TEST(BatchNormSpec, BackwardSavedStatisticsMatchTheForward) {
  auto fwd = make_batchnorm_train_op();
  auto bwd = make_batchnorm_bwd_op();
  const Params params{{"n", 5}, {"c", 3}, {"h", 3}, {"w", 1}};
  const Problem pf = fwd->make_problem(params), pb = bwd->make_problem(params);
  HostTensors fin = allocate_host_inputs(fwd->tensors(pf)), bin = allocate_host_inputs(bwd->tensors(pb));
  ReferenceTensors fref = allocate_references(fwd->tensors(pf));
  fwd->draw_inputs(pf, Distribution::normal, 3, fin);
  bwd->draw_inputs(pb, Distribution::normal, 3, bin);
  fwd->reference(pf, fin, fref);
  ASSERT_EQ(fin[batchnorm_train::kX], bin[batchnorm_bwd::kX]);
  for (int c = 0; c < 3; ++c) {
    EXPECT_EQ(bin[batchnorm_bwd::kSaveMean][c], float(fref[batchnorm_train::kSaveMean][c]));
    EXPECT_EQ(bin[batchnorm_bwd::kSaveInvstd][c], float(fref[batchnorm_train::kSaveInvstd][c]));
  }
}

TEST(BatchNormSpec, OneValuePerChannelIsAUsageError) {
  for (const auto& op : both_ops()) {
    EXPECT_THROW(op->make_problem({{"n", 1}, {"c", 8}}), UsageError);
    EXPECT_THROW(op->make_problem({{"n", 1}, {"c", 3}, {"h", 1}, {"w", 1}}), UsageError);
    try {
      op->make_problem({{"n", 1}, {"c", 8}});
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("M - 1"), std::string::npos) << e.what();
    }
    EXPECT_NO_THROW(op->make_problem({{"n", 1}, {"c", 3}, {"h", 5}, {"w", 5}}));
  }
}

TEST(BatchNormSpec, BadParametersAreUsageErrors) {
  auto op = make_batchnorm_train_op();
  EXPECT_THROW(op->make_problem({{"n", 4}, {"c", 0}}), UsageError);
  EXPECT_THROW(op->make_problem({{"n", 4}, {"c", 2}, {"eps", -1}}), UsageError);
  EXPECT_THROW(op->make_problem({{"n", 4}, {"c", 2}, {"momentum", 1.5}}), UsageError);
  EXPECT_THROW(op->make_problem({{"n", 4.5}, {"c", 2}}), UsageError);
  EXPECT_THROW(op->make_problem({{"c", 2}}), UsageError);
  EXPECT_THROW(op->make_problem({{"n", 4}, {"c", 2}, {"groups", 2}}), UsageError);
  EXPECT_THROW(op->make_problem({{"n", 70000}, {"c", 1}, {"h", 200}, {"w", 200}}), UsageError);  // M >= 2^31
}

TEST(BatchNormSpec, ProblemIdsRoundTrip) {
  for (const auto& op : both_ops()) {
    const auto problems = op->problems_in("");
    ASSERT_GE(problems.size(), 20u);
    for (const Problem& p : problems) EXPECT_EQ(op->parse_problem_id(p.id()).id(), p.id());
    EXPECT_EQ(op->make_problem({{"n", 1024}, {"c", 8192}}).id(), op->name() + "/n1024_c8192/fp32");
    const Problem q = op->parse_problem_id(op->name() + "/n16_c64_h256_w256_eps0.001_momentum0.2/fp32");
    EXPECT_DOUBLE_EQ(q.real("eps"), 1e-3);
    EXPECT_DOUBLE_EQ(q.real("momentum"), 0.2);
    EXPECT_EQ(op->problems_in("kb").size(), 5u);
  }
}

}  // namespace
}  // namespace nb::bn
