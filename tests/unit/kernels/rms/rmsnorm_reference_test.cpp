// RMSNorm op specs: the float64 references against plain long-double loops (odd shapes, every
// distribution, NaN/Inf placement), problem ids, parameter errors, suites and byte models.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "loop_match.hpp"
#include "reference_trial.hpp"
#include "harness/errors.hpp"
#include "harness/narrow_float.hpp"
#include "harness/op_spec.hpp"
#include "kernels/ops.hpp"

namespace nb {
namespace {

using Loop = std::vector<long double>;

// y = x / sqrt(mean over channels of x^2 + eps), one position at a time.
Loop nchw_loop(const std::vector<float>& x, std::int64_t n, std::int64_t c, std::int64_t plane, long double eps) {
  Loop y(x.size());
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t s = 0; s < plane; ++s) {
      long double sum = 0;
      for (std::int64_t ch = 0; ch < c; ++ch) sum += (long double)x[(i * c + ch) * plane + s] * x[(i * c + ch) * plane + s];
      const long double denom = std::sqrt(sum / c + eps);
      for (std::int64_t ch = 0; ch < c; ++ch) y[(i * c + ch) * plane + s] = x[(i * c + ch) * plane + s] / denom;
    }
  return y;
}

Loop rows_loop(const std::vector<float>& x, const std::vector<float>& w, std::int64_t m, std::int64_t n,
               long double eps) {
  Loop y(x.size());
  for (std::int64_t r = 0; r < m; ++r) {
    long double sum = 0;
    for (std::int64_t j = 0; j < n; ++j) sum += (long double)x[r * n + j] * x[r * n + j];
    const long double denom = std::sqrt(sum / n + eps);
    for (std::int64_t j = 0; j < n; ++j) y[r * n + j] = x[r * n + j] / denom * w[j];
  }
  return y;
}

const std::vector<Distribution> kDistributions = {Distribution::uniform01, Distribution::normal,
                                                  Distribution::offset,    Distribution::tiny_var,
                                                  Distribution::wide,      Distribution::special};

TEST(RmsNormNchwReference, MatchesLongDoubleLoopOnOddShapes) {
  const auto op = make_rmsnorm_nchw_op();
  const std::vector<Params> shapes = {{{"n", 1}, {"c", 1}, {"h", 1}, {"w", 1}},
                                      {{"n", 3}, {"c", 3}, {"h", 7}, {"w", 9}},
                                      {{"n", 1}, {"c", 65}, {"h", 5}, {"w", 3}},
                                      {{"n", 2}, {"c", 1}, {"h", 4}, {"w", 4}},
                                      {{"n", 2}, {"c", 3}, {"h", 50}, {"w", 50}},  // > 2048 positions: 2 tasks
                                      {{"n", 1}, {"c", 4}, {"h", 2}, {"w", 2}, {"eps", 0.25}}};
  for (const auto& params : shapes) {
    const Problem p = op->make_problem(params);
    for (Distribution d : kDistributions) {
      const test::ReferenceTrial c = test::reference_trial(*op, p, d, 7);
      const Loop want = nchw_loop(c.in[0], p.dim("n"), p.dim("c"), p.dim("h") * p.dim("w"), p.real("eps"));
      test::expect_matches_loop(c.ref[1], want, 1e-300L, p.id() + " " + distribution_name(d));
    }
  }
}

TEST(RmsNormRowsReference, MatchesLongDoubleLoopOnOddShapes) {
  const auto op = make_rmsnorm_rows_op();
  const std::vector<Params> shapes = {{{"m", 1}, {"n", 1}},    {{"m", 7}, {"n", 3}},     {{"m", 3}, {"n", 1000}},
                                      {{"m", 2}, {"n", 65}},   {{"m", 1}, {"n", 4097}},  {{"m", 5}, {"n", 33}},
                                      {{"m", 2}, {"n", 8}, {"eps", 0.5}}};
  for (const auto& params : shapes) {
    const Problem p = op->make_problem(params);
    for (Distribution d : kDistributions) {
      const test::ReferenceTrial c = test::reference_trial(*op, p, d, 11);
      const Loop want = rows_loop(c.in[0], c.in[1], p.dim("m"), p.dim("n"), p.real("eps"));
      test::expect_matches_loop(c.ref[2], want, 1e-300L, p.id() + " " + distribution_name(d));
    }
  }
}

// An Inf makes its position's mean square Inf: the neighbours become 0, the Inf itself NaN.
TEST(RmsNormNchwReference, InfAndNanStayInTheirPosition) {
  const auto op = make_rmsnorm_nchw_op();
  const Problem p = op->make_problem({{"n", 1}, {"c", 2}, {"h", 1}, {"w", 3}});
  HostTensors in = allocate_host_inputs(op->tensors(p));
  ReferenceTensors ref = allocate_references(op->tensors(p));
  in[0] = {INFINITY, 1.0f, 3.0f, 2.0f, NAN, 4.0f};  // channel 0 then channel 1, positions 0..2
  op->reference(p, in, ref);
  EXPECT_TRUE(std::isnan(ref[1][0]));
  EXPECT_EQ(ref[1][3], 0.0);                                  // position 0, channel 1
  EXPECT_TRUE(std::isnan(ref[1][1]) && std::isnan(ref[1][4]));  // position 1 holds the NaN
  EXPECT_NEAR(ref[1][2], 3.0 / std::sqrt((9.0 + 16.0) / 2 + 1e-5), 1e-12);
  EXPECT_NEAR(ref[1][5], 4.0 / std::sqrt((9.0 + 16.0) / 2 + 1e-5), 1e-12);
}

TEST(RmsNormRowsReference, HugeValuesDoNotOverflowInFloat64) {
  const auto op = make_rmsnorm_rows_op();
  const Problem p = op->make_problem({{"m", 1}, {"n", 2}});
  HostTensors in = allocate_host_inputs(op->tensors(p));
  ReferenceTensors ref = allocate_references(op->tensors(p));
  in[0] = {3e20f, -4e20f};
  in[1] = {1.0f, 2.0f};
  op->reference(p, in, ref);
  const double rms = std::sqrt((9e40 + 16e40) / 2);
  EXPECT_NEAR(ref[2][0], 3e20 / rms, 1e-12);
  EXPECT_NEAR(ref[2][1], -4e20 / rms * 2, 1e-12);
}

TEST(RmsNormProblems, IdsRoundTripForEveryNamedProblem) {
  for (const auto& op : {make_rmsnorm_nchw_op(), make_rmsnorm_rows_op()}) {
    const auto all = op->problems_in("");
    ASSERT_FALSE(all.empty());
    for (const Problem& p : all) EXPECT_EQ(op->parse_problem_id(p.id()).id(), p.id());
  }
  const auto nchw = make_rmsnorm_nchw_op();
  const Problem p = nchw->make_problem({{"n", 2}, {"c", 3}, {"h", 4}, {"w", 5}, {"eps", 1e-6}});
  EXPECT_EQ(p.id(), "rmsnorm_nchw/n2_c3_h4_w5_eps1e-06/fp32");
  EXPECT_EQ(nchw->parse_problem_id(p.id()).id(), p.id());
  EXPECT_FLOAT_EQ(static_cast<float>(nchw->parse_problem_id(p.id()).real("eps")), 1e-6f);
}

std::string usage_error(const OpSpec& op, const Params& p) {
  try {
    op.make_problem(p);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "no error";
}

TEST(RmsNormProblems, BadParametersAreUsageErrorsThatSayWhy) {
  const auto nchw = make_rmsnorm_nchw_op();
  EXPECT_NE(usage_error(*nchw, {{"n", 1}, {"c", 0}, {"h", 4}, {"w", 4}}).find("'c' = 0 is out of range"),
            std::string::npos);
  EXPECT_NE(usage_error(*nchw, {{"c", 4}, {"h", 4}, {"w", 4}}).find("'n' is required"), std::string::npos);
  EXPECT_NE(usage_error(*nchw, {{"n", 1}, {"c", 4}, {"h", 2.5}, {"w", 4}}).find("'h' must be an integer"),
            std::string::npos);
  EXPECT_NE(usage_error(*nchw, {{"n", 1}, {"c", 4}, {"h", 4}, {"w", 4}, {"g", 2}}).find("unknown parameter 'g'"),
            std::string::npos);
  EXPECT_NE(usage_error(*nchw, {{"n", 1e6}, {"c", 1024}, {"h", 1e3}, {"w", 1e3}}).find("more than 2^40"),
            std::string::npos);
  EXPECT_NE(usage_error(*nchw, {{"n", 1}, {"c", 4}, {"h", 4}, {"w", 4}, {"eps", -1}}).find("'eps'"),
            std::string::npos);

  const auto rows = make_rmsnorm_rows_op();
  EXPECT_NE(usage_error(*rows, {{"m", 4}}).find("'n' is required"), std::string::npos);
  EXPECT_NE(usage_error(*rows, {{"m", 0}, {"n", 4}}).find("'m' = 0 is out of range"), std::string::npos);
  EXPECT_NE(usage_error(*rows, {{"m", 1e7}, {"n", 1e6}}).find("more than 2^40"), std::string::npos);
  EXPECT_THROW(rows->parse_problem_id("rmsnorm_rows/m4_n1.5/fp32"), UsageError);
  EXPECT_EQ(usage_error(*rows, {{"m", 4}, {"n", 4}}), "no error");
}

TEST(RmsNormProblems, SuitesHoldTheKernelBenchShapesAndSmallQuickOnes) {
  const auto nchw = make_rmsnorm_nchw_op();
  const auto kb = nchw->problems_in("kb");
  ASSERT_EQ(kb.size(), 2u);
  EXPECT_EQ(kb[0].id(), "rmsnorm_nchw/n16_c64_h256_w256/fp32");
  EXPECT_EQ(kb[1].id(), "rmsnorm_nchw/n112_c64_h512_w512/fp32");
  bool packed = false, unpacked = false;
  for (const Problem& p : nchw->problems_in("quick")) {
    const std::int64_t plane = p.dim("h") * p.dim("w");
    EXPECT_LT(p.dim("n") * p.dim("c") * plane, 2000000) << p.id();
    (plane % 4 == 0 ? packed : unpacked) = true;
  }
  EXPECT_TRUE(packed && unpacked);

  const auto rows = make_rmsnorm_rows_op();
  EXPECT_EQ(rows->problems_in("kb").size(), 2u);
  EXPECT_EQ(rows->problems_in("kb")[1].id(), "rmsnorm_rows/m32768_n8192/fp32");
  for (const Problem& p : rows->problems_in("quick")) EXPECT_LT(p.dim("m") * p.dim("n"), 2000000) << p.id();
  for (const Problem& p : rows->problems_in("sweep")) {
    if (p.dim("n") % 4 != 0) continue;
    const std::int64_t elements = p.dtype == DType::bf16 ? std::int64_t(1) << 28 : std::int64_t(1) << 26;
    EXPECT_EQ(p.dim("m") * p.dim("n"), elements) << p.id();
  }
}

bool has(const std::vector<Problem>& problems, const std::string& id) {
  for (const Problem& p : problems)
    if (p.id() == id) return true;
  return false;
}

// The 2-byte types: quick problems in every storage, the LLM shapes in bf16 and fp16, a bf16
// sweep from 256 to 262144 at M*N = 2^28; the fp32 kb and sweep problems stay fp32.
TEST(RmsNormProblems, NarrowStorageSuites) {
  const auto rows = make_rmsnorm_rows_op();
  for (const char* suite : {"quick", "llm", "sweep", "kb", ""}) {
    std::set<std::string> ids;
    for (const Problem& p : rows->problems_in(suite)) EXPECT_TRUE(ids.insert(p.id()).second) << "twice: " << p.id();
  }
  std::map<DType, int> quick;
  for (const Problem& p : rows->problems_in("quick")) ++quick[p.dtype];
  EXPECT_GT(quick[DType::f32], 10);
  EXPECT_EQ(quick[DType::bf16], quick[DType::f32]);
  EXPECT_EQ(quick[DType::f16], quick[DType::f32]);
  for (const Problem& p : rows->problems_in("kb")) EXPECT_EQ(p.dtype, DType::f32) << p.id();

  const auto llm = rows->problems_in("llm");
  for (const char* shape : {"m4096_n4096", "m32768_n8192", "m16384_n16384"})
    for (const char* dtype : {"bf16", "fp16"}) EXPECT_TRUE(has(llm, std::string("rmsnorm_rows/") + shape + "/" + dtype));
  EXPECT_TRUE(has(llm, "rmsnorm_rows/m4096_n4096/fp32"));
  EXPECT_TRUE(has(llm, "rmsnorm_rows/m32768_n8192/fp32"));

  int bf16_sweep = 0;
  for (const Problem& p : rows->problems_in("sweep")) {
    if (p.dtype != DType::bf16) continue;
    ++bf16_sweep;
    EXPECT_TRUE(has(llm, p.id())) << p.id() << " is in llm too";
  }
  EXPECT_EQ(bf16_sweep, 11);  // N = 256, 512, ..., 262144
  EXPECT_TRUE(has(rows->problems_in("sweep"), "rmsnorm_rows/m1024_n262144/bf16"));
  EXPECT_TRUE(has(rows->problems_in("sweep"), "rmsnorm_rows/m1048576_n256/bf16"));
  EXPECT_EQ(rows->parse_problem_id("rmsnorm_rows/m1024_n262144/bf16").dtype, DType::bf16);
  EXPECT_THROW(rows->parse_problem_id("rmsnorm_rows/m4_n4/tf32"), UsageError);
}

// A bf16 problem stores x, w and y in bf16 and draws x for bf16 (offset: 1e3 + 8 N(0,1)); the
// harness rounds what was drawn, and the reference starts from the rounded values.
TEST(RmsNormProblems, NarrowProblemsDeclareAndDrawTheirStorage) {
  const auto rows = make_rmsnorm_rows_op();
  const Problem p = rows->make_problem({{"m", 4}, {"n", 1000}}, DType::bf16);
  const auto decls = rows->tensors(p);
  ASSERT_EQ(decls.size(), 3u);
  for (const TensorDecl& d : decls) EXPECT_EQ(d.dtype, DType::bf16) << d.name;
  HostTensors in = allocate_host_inputs(decls);
  draw_stored_inputs(*rows, p, decls, Distribution::offset, 3, in);
  double mean = 0;
  for (float v : in[0]) {
    EXPECT_EQ(round_to_storage(v, DType::bf16), v);
    mean += v / 4000.0;
  }
  EXPECT_NEAR(mean, 1e3, 2.0);
  for (float v : in[1]) EXPECT_EQ(round_to_storage(v, DType::bf16), v);
}

TEST(RmsNormProblems, ByteModelsCountEachTensorOnce) {
  const auto nchw = make_rmsnorm_nchw_op();
  EXPECT_DOUBLE_EQ(nchw->work(nchw->problems_in("kb")[1]).bytes, 2.0 * 4 * 112 * 64 * 512 * 512);
  const auto rows = make_rmsnorm_rows_op();
  EXPECT_DOUBLE_EQ(rows->work(rows->make_problem({{"m", 4096}, {"n", 4096}})).bytes,
                   4.0 * (2.0 * 4096 * 4096 + 4096));
  for (DType t : {DType::bf16, DType::f16}) {  // every tensor by its storage size: 2 bytes
    const WorkModel w = rows->work(rows->make_problem({{"m", 4096}, {"n", 4096}}, t));
    EXPECT_DOUBLE_EQ(w.bytes, 2.0 * (2.0 * 4096 * 4096 + 4096));
    EXPECT_DOUBLE_EQ(w.flops, 4.0 * 4096 * 4096);
  }
}

// Only the variants that survive x^2 overflow claim `wide`: naive (double sums) and the best
// (power-of-two rescaling); smem and warp sum squares in float. The rows layout also has cuDNN's
// RMSNorm as its library baseline, which claims nothing, and tma_row, which rescales as the best.
TEST(RmsNormVariants, TablesListTheFourIdeasAndWhoClaimsWide) {
  for (const auto& op : {make_rmsnorm_nchw_op(), make_rmsnorm_rows_op()}) {
    const bool rows = op->name() == "rmsnorm_rows";
    ASSERT_EQ(op->variants().size(), rows ? 6u : 4u) << op->name();
    if (rows) {
      EXPECT_EQ(op->variants()[4]->name(), "cudnn");
      EXPECT_TRUE(op->variants()[4]->is_library_baseline());
      EXPECT_TRUE(op->variants()[4]->claims().empty());
      EXPECT_EQ(op->variants()[5]->name(), "tma_row");
      EXPECT_FALSE(op->variants()[5]->is_library_baseline());
      EXPECT_EQ(op->variants()[5]->claims(), std::vector<Distribution>{Distribution::wide});
    }
    EXPECT_EQ(op->variants()[0]->name(), "naive");
    EXPECT_EQ(op->variants()[1]->name(), "smem");
    EXPECT_EQ(op->variants()[2]->name(), "warp");
    const std::vector<Distribution> wide = {Distribution::wide};
    EXPECT_EQ(op->variants()[0]->claims(), wide);
    EXPECT_TRUE(op->variants()[1]->claims().empty());
    EXPECT_TRUE(op->variants()[2]->claims().empty());
    EXPECT_EQ(op->variants()[3]->claims(), wide);
    ASSERT_EQ(op->stress().size(), 1u);
    EXPECT_EQ(op->stress()[0].distribution, Distribution::wide);
    ASSERT_EQ(op->not_applicable().size(), 1u);
    EXPECT_EQ(op->not_applicable()[0].kind, "welford");
    for (const auto& v : op->variants()) EXPECT_FALSE(v->idea().empty());
  }
}

}  // namespace
}  // namespace nb
