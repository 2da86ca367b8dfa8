// Softmax: the float64 reference against long double loops, its properties (rows sum to 1, shift
// invariance, NaN containment), and the verdicts the stress design rests on: a max-subtracting
// fp32 softmax passes even `wide`, and an all-zero output fails even at N = 393216. In bf16 and
// fp16, an fp32 softmax rounded once to the storage type passes the harness's tolerance (fp16's
// long rows store subnormals), and the named problems hold each shape once per dtype.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <string>

#include "reference_trial.hpp"
#include "baselines/cpu/softmax_reference.hpp"
#include "harness/errors.hpp"
#include "harness/narrow_float.hpp"
#include "harness/validation/compare.hpp"
#include "harness/validation/trial_tolerance.hpp"
#include "kernels/ops.hpp"
#include "kernels/softmax/spec.hpp"

namespace nb {
namespace {

using Trial = test::ReferenceTrial;

Trial make_trial(const OpSpec& op, std::int64_t m, std::int64_t n, Distribution d, std::uint64_t seed,
                 DType dtype = DType::f32) {
  return test::reference_trial(op, op.make_problem({{"m", double(m)}, {"n", double(n)}}, dtype), d, seed);
}

// What every max-subtracting fp32 kernel computes: float max, float expf, a float pairwise sum.
float pairwise_sum(const float* v, std::int64_t n) {
  if (n <= 8) {
    float s = 0;
    for (std::int64_t i = 0; i < n; ++i) s += v[i];
    return s;
  }
  return pairwise_sum(v, n / 2) + pairwise_sum(v + n / 2, n - n / 2);
}

HostTensors fp32_softmax(const Trial& t, std::int64_t m, std::int64_t n) {
  HostTensors out;
  out.data.resize(t.decls.size());
  out[softmax::kY].resize(std::size_t(m * n));
  std::vector<float> e(static_cast<std::size_t>(n));
  for (std::int64_t r = 0; r < m; ++r) {
    const float* x = t.in[softmax::kX].data() + r * n;
    float mx = -std::numeric_limits<float>::max();
    for (std::int64_t i = 0; i < n; ++i) mx = std::fmax(mx, x[i]);
    for (std::int64_t i = 0; i < n; ++i) e[i] = std::exp(x[i] - mx);
    const float inv = 1.0f / pairwise_sum(e.data(), n);
    for (std::int64_t i = 0; i < n; ++i) out[softmax::kY][r * n + i] = e[i] * inv;
  }
  return out;
}

TrialJudgement judge(const OpSpec& op, const Trial& t, const HostTensors& out) {
  return judge_trial(t.decls, out, t.ref, op.tolerance(t.p).scaled(op.condition(t.p, t.in)), false);
}

class SoftmaxReference : public testing::Test {
 protected:
  std::unique_ptr<OpSpec> op = make_softmax_op();
};

TEST_F(SoftmaxReference, MatchesLongDoubleLoopsOnOddShapes) {
  for (auto [m, n] : {std::pair<int, int>{3, 1}, {5, 3}, {7, 1000}, {2, 4097}}) {
    const Trial t = make_trial(*op, m, n, Distribution::normal, 11);
    for (int r = 0; r < m; ++r) {
      const float* x = t.in[softmax::kX].data() + r * n;
      long double mx = x[0], sum = 0;
      for (int i = 0; i < n; ++i) mx = std::max<long double>(mx, x[i]);
      for (int i = 0; i < n; ++i) sum += std::exp(static_cast<long double>(x[i]) - mx);
      for (int i = 0; i < n; ++i) {
        const long double expect = std::exp(static_cast<long double>(x[i]) - mx) / sum;
        ASSERT_NEAR(t.ref[softmax::kY][r * n + i], double(expect), 1e-14 + 1e-12 * double(expect)) << r << "," << i;
      }
    }
  }
}

TEST_F(SoftmaxReference, RowsSumToOne) {
  for (Distribution d : {Distribution::uniform01, Distribution::normal, Distribution::offset, Distribution::wide}) {
    const Trial t = make_trial(*op, 4, 4097, d, 5);
    for (int r = 0; r < 4; ++r) {
      double sum = 0;
      for (int i = 0; i < 4097; ++i) sum += t.ref[softmax::kY][r * 4097 + i];
      EXPECT_NEAR(sum, 1.0, 1e-12) << distribution_name(d) << " row " << r;
    }
  }
}

TEST_F(SoftmaxReference, ShiftInvariant) {
  const std::int64_t m = 3, n = 1001;
  std::vector<float> x(m * n), shifted(m * n);
  for (std::int64_t i = 0; i < m * n; ++i) {
    x[i] = float((i * 37) % 129 - 64) / 8.0f;  // multiples of 1/8: x + 100 is exact in fp32
    shifted[i] = x[i] + 100.0f;
  }
  std::vector<double> y(m * n), ys(m * n);
  cpu::softmax_reference(m, n, x.data(), y.data());
  cpu::softmax_reference(m, n, shifted.data(), ys.data());
  for (std::int64_t i = 0; i < m * n; ++i) ASSERT_NEAR(y[i], ys[i], 1e-15 + 1e-13 * y[i]) << i;
}

TEST_F(SoftmaxReference, NonFiniteStaysInItsRow) {
  Trial t = make_trial(*op, 5, 64, Distribution::normal, 2);
  t.in[softmax::kX][1 * 64 + 10] = std::numeric_limits<float>::quiet_NaN();
  t.in[softmax::kX][3 * 64 + 0] = std::numeric_limits<float>::infinity();
  t.in[softmax::kX][4 * 64 + 5] = -std::numeric_limits<float>::infinity();
  op->reference(t.p, t.in, t.ref);
  for (int r = 0; r < 5; ++r)
    for (int i = 0; i < 64; ++i) {
      const double y = t.ref[softmax::kY][r * 64 + i];
      EXPECT_EQ(std::isnan(y), r == 1 || r == 3) << r << "," << i;
    }
  EXPECT_EQ(t.ref[softmax::kY][4 * 64 + 5], 0.0);  // -Inf contributes exp(-Inf) = 0 and nothing else changes
}

// Wide inputs (|x| up to 1e20) make exp over/underflow without the max subtraction; with it the
// float64 reference is one-hot-ish and fp32 matches: wide needs no stress() entry for softmax.
TEST_F(SoftmaxReference, MaxSubtractingFp32PassesWideAndNormal) {
  for (Distribution d : {Distribution::wide, Distribution::normal, Distribution::offset, Distribution::uniform01})
    for (std::uint64_t seed : {1u, 2u, 3u}) {
      const Trial t = make_trial(*op, 8, 4096, d, seed);
      const TrialJudgement j = judge(*op, t, fp32_softmax(t, 8, 4096));
      EXPECT_TRUE(j.passed) << distribution_name(d) << ": " << j.failure;
    }
}

TEST_F(SoftmaxReference, AllZeroOutputFailsAtKernelBenchRowLength) {
  const Trial t = make_trial(*op, 1, 393216, Distribution::uniform01, 1);
  HostTensors zeros;
  zeros.data.resize(t.decls.size());
  zeros[softmax::kY].assign(393216, 0.0f);
  const TrialJudgement j = judge(*op, t, zeros);
  EXPECT_FALSE(j.passed);
  ASSERT_EQ(j.tensors.size(), 1u);
  EXPECT_NEAR(j.tensors[0].normwise, 1.0, 1e-12);
  EXPECT_TRUE(judge(*op, t, fp32_softmax(t, 1, 393216)).passed);  // while the right answer passes
}

TEST_F(SoftmaxReference, ProblemIdsRoundTrip) {
  for (const Problem& p : op->problems_in("")) EXPECT_EQ(op->parse_problem_id(p.id()).id(), p.id());
  EXPECT_EQ(op->problems_in("sweep").size(), 9u + 11u);  // fp32 (32768, 256..65536), bf16 N = 256..262144
  EXPECT_EQ(op->make_problem({{"m", 4096}, {"n", 393216}}).id(), "softmax/m4096_n393216/fp32");
  EXPECT_EQ(op->make_problem({{"m", 1024}, {"n", 262144}}, DType::bf16).id(), "softmax/m1024_n262144/bf16");
}

// The harness's verdict: each tensor's tolerance with its storage rounding (trial_tolerances).
TrialJudgement judge_stored(const OpSpec& op, const Trial& t, const HostTensors& out) {
  const TrialTolerances tol = trial_tolerances(op, t.p, t.decls, t.in, t.ref);
  return judge_trial(t.decls, out, t.ref, [&](int i) { return tol.per_tensor.at(std::size_t(i)); }, false);
}

// What a correct narrow kernel stores: the fp32 softmax, rounded once to the storage type.
HostTensors stored_softmax(const Trial& t, std::int64_t m, std::int64_t n) {
  HostTensors out = fp32_softmax(t, m, n);
  round_to_storage(out[softmax::kY], storage_type(t.p.dtype));
  return out;
}

TEST_F(SoftmaxReference, NarrowTensorsAndBytesFollowTheStorageType) {
  for (DType t : {DType::f32, DType::bf16, DType::f16}) {
    const Problem p = op->make_problem({{"m", 8}, {"n", 1000}}, t);
    for (const TensorDecl& d : op->tensors(p)) EXPECT_EQ(d.dtype, storage_type(t)) << d.name;
    EXPECT_EQ(op->work(p).bytes, 2.0 * double(dtype_size(t)) * 8000) << dtype_name(t);
  }
  EXPECT_THROW(op->make_problem({{"m", 8}, {"n", 1000}}, DType::tf32), UsageError);
}

TEST_F(SoftmaxReference, NarrowOutputRoundedOncePasses) {
  for (DType dtype : {DType::bf16, DType::f16})
    for (Distribution d : all_distributions())
      for (auto [m, n] : {std::pair<std::int64_t, std::int64_t>{8, 4096}, {2, 65536}}) {
        const Trial t = make_trial(*op, m, n, d, 7, dtype);
        const TrialJudgement j = judge_stored(*op, t, stored_softmax(t, m, n));
        EXPECT_TRUE(j.passed) << dtype_name(dtype) << " " << distribution_name(d) << " n=" << n << ": " << j.failure;
      }
}

// fp16 rows of 65536 normal values store most outputs below fp16's smallest normal (6.1e-5): a
// correct output passes only through the tolerance's absolute allowance, and an output that
// flushes them to zero, or is all zero, fails.
TEST_F(SoftmaxReference, Fp16LongRowsKeepTheirSubnormals) {
  const std::int64_t m = 2, n = 65536;
  const Trial t = make_trial(*op, m, n, Distribution::normal, 3, DType::f16);
  const HostTensors correct = stored_softmax(t, m, n);
  std::int64_t subnormal = 0;
  for (float y : correct[softmax::kY]) subnormal += (y != 0.0f && y < 0x1.0p-14f);
  EXPECT_GT(subnormal, n);  // over half of the outputs
  EXPECT_TRUE(judge_stored(*op, t, correct).passed) << judge_stored(*op, t, correct).failure;

  const TrialTolerances tol = trial_tolerances(*op, t.p, t.decls, t.in, t.ref);
  Tolerance without_allowance = tol.per_tensor.at(softmax::kY);
  without_allowance.absolute = 0;
  EXPECT_FALSE(judge_trial(t.decls, correct, t.ref, without_allowance, false).passed) << "the allowance is needed";

  HostTensors flushed = correct;
  for (float& y : flushed[softmax::kY]) y = y < 0x1.0p-14f ? 0.0f : y;
  EXPECT_FALSE(judge_stored(*op, t, flushed).passed);

  HostTensors zeros = correct;
  std::fill(zeros[softmax::kY].begin(), zeros[softmax::kY].end(), 0.0f);
  const TrialJudgement zero = judge_stored(*op, t, zeros);
  EXPECT_FALSE(zero.passed);
  EXPECT_GT(zero.tensors.at(0).normwise, 0.99);
}

TEST_F(SoftmaxReference, NamedProblemsHoldEachShapeOncePerDtype) {
  std::set<std::string> ids;
  for (const Problem& p : op->problems_in("")) EXPECT_TRUE(ids.insert(p.id()).second) << p.id() << " named twice";

  std::set<std::string> llm;
  for (const Problem& p : op->problems_in("llm")) llm.insert(p.id());
  for (const char* shape : {"m4096_n4096", "m32768_n8192", "m16384_n16384"})
    for (const char* dtype : {"bf16", "fp16"})
      EXPECT_EQ(llm.count(std::string("softmax/") + shape + "/" + dtype), 1u) << shape << " " << dtype;

  std::int64_t bf16_sweep = 0;
  for (const Problem& p : op->problems_in("sweep")) {
    const softmax::Shape s = softmax::shape_of(p);
    if (p.dtype == DType::bf16) {
      ++bf16_sweep;
      EXPECT_EQ(s.elements(), std::int64_t(1) << 28) << p.id();
      EXPECT_EQ(llm.count(p.id()), 1u) << p.id() << " is in the llm suite too";
    } else {
      EXPECT_EQ(p.dtype, DType::f32);
      EXPECT_EQ(s.m, 32768);
    }
  }
  EXPECT_EQ(bf16_sweep, 11);
  for (std::int64_t n : {256, 512, 1024, 2048})
    EXPECT_EQ(ids.count("softmax/m32768_n" + std::to_string(n) + "/fp32"), 1u);
}

TEST_F(SoftmaxReference, QuickProblemsRunInEveryStorageTypeAndStaySmall) {
  std::map<DType, int> per_dtype;
  for (const Problem& p : op->problems_in("quick")) {
    ++per_dtype[p.dtype];
    EXPECT_LE(softmax::shape_of(p).elements(), 2000000) << p.id();
  }
  EXPECT_EQ(per_dtype.size(), 3u);
  EXPECT_EQ(per_dtype[DType::f32], per_dtype[DType::bf16]);
  EXPECT_EQ(per_dtype[DType::f32], per_dtype[DType::f16]);
}

}  // namespace
}  // namespace nb
