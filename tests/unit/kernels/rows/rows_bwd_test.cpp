// rmsnorm_rows_bwd and layernorm_rows_bwd on the CPU: the float64 reference against long-double
// loops and against central finite differences of a float64 forward; the saved statistics the
// draws make; the tolerance claims (a correct fp32 computation passes every distribution in every
// storage type, planted faults fail); and the specs (suites, ids, byte model, parameter errors).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <vector>

#include "loop_match.hpp"
#include "reference_trial.hpp"
#include "baselines/cpu/norm_rows_bwd_reference.hpp"
#include "harness/errors.hpp"
#include "harness/narrow_float.hpp"
#include "harness/validation/compare.hpp"
#include "harness/validation/trial_tolerance.hpp"
#include "kernels/rows/rows_bwd/layernorm_rows_bwd/spec.hpp"
#include "kernels/ops.hpp"
#include "kernels/rows/rows_bwd/rmsnorm_rows_bwd/spec.hpp"
#include "kernels/rows/rows_bwd/fused_plan.hpp"

namespace nb::rows_bwd {
namespace {

using LD = long double;

struct OpCase {
  std::unique_ptr<OpSpec> op;
  Layout layout;
};

std::vector<OpCase> both_ops() {
  std::vector<OpCase> ops;
  ops.push_back({make_rmsnorm_rows_bwd_op(), rmsnorm_rows_bwd::kLayout});
  ops.push_back({make_layernorm_rows_bwd_op(), layernorm_rows_bwd::kLayout});
  return ops;
}

using Trial = test::ReferenceTrial;

// ---- the reference against long-double loops -----------------------------------------------

struct Loops {
  std::vector<LD> dx, dw, db;
  std::vector<LD> dx_scale, dw_scale, db_scale;  // the size of the terms: what 1e-12 is relative to
};

Loops backward_loops(const Layout& l, const Trial& t) {
  const std::int64_t m = t.p.dim("m"), n = t.p.dim("n");
  const auto& x = t.in[l.x];
  const auto& w = t.in[l.w];
  const auto& dy = t.in[l.dy];
  Loops out{std::vector<LD>(std::size_t(m * n)), std::vector<LD>(std::size_t(n), 0), std::vector<LD>(std::size_t(n), 0),
            std::vector<LD>(std::size_t(m * n)), std::vector<LD>(std::size_t(n), 0), std::vector<LD>(std::size_t(n), 0)};
  for (std::int64_t r = 0; r < m; ++r) {
    const LD mean = l.layer() ? LD(t.in[l.mean][std::size_t(r)]) : 0, rstd = t.in[l.rstd][std::size_t(r)];
    LD sg = 0, sgx = 0, ag = 0, agx = 0;
    for (std::int64_t j = 0; j < n; ++j) {
      const LD g = LD(dy[std::size_t(r * n + j)]) * w[std::size_t(j)], xh = (x[std::size_t(r * n + j)] - mean) * rstd;
      sg += g, sgx += g * xh, ag += std::fabs(g), agx += std::fabs(g * xh);
    }
    const LD mg = l.layer() ? sg / n : 0, mgx = sgx / n;
    for (std::int64_t j = 0; j < n; ++j) {
      const std::size_t k = std::size_t(r * n + j);
      const LD g = LD(dy[k]) * w[std::size_t(j)], xh = (x[k] - mean) * rstd;
      out.dx[k] = rstd * (g - mg - xh * mgx);
      out.dx_scale[k] = std::fabs(rstd) * (std::fabs(g) + ag / n + std::fabs(xh) * agx / n);
      out.dw[std::size_t(j)] += dy[k] * xh;
      out.dw_scale[std::size_t(j)] += std::fabs(dy[k] * xh);
      out.db[std::size_t(j)] += dy[k];
      out.db_scale[std::size_t(j)] += std::fabs(LD(dy[k]));
    }
  }
  return out;
}

TEST(RowsBwdReference, MatchesLongDoubleLoops) {
  const std::vector<Params> shapes = {{{"m", 1}, {"n", 1}},  {{"m", 7}, {"n", 1}},   {{"m", 5}, {"n", 3}},
                                      {{"m", 4}, {"n", 33}}, {{"m", 3}, {"n", 100}}, {{"m", 130}, {"n", 17}},
                                      {{"m", 4}, {"n", 8}, {"eps", 0.25}}};
  for (const auto& [op, layout] : both_ops())
    for (const Params& params : shapes)
      for (DType dtype : {DType::f32, DType::bf16, DType::f16})
        for (Distribution d : all_distributions()) {
          const Trial t = test::reference_trial(*op, op->make_problem(params, dtype), d, 7);
          const std::string what = t.p.id() + " " + distribution_name(d);
          const Loops want = backward_loops(layout, t);
          test::expect_matches_loop(t.ref[layout.dx], want.dx, want.dx_scale, 1e-300L, what + " dx");
          test::expect_matches_loop(t.ref[layout.dw], want.dw, want.dw_scale, 1e-300L, what + " dw");
          if (layout.layer())
            test::expect_matches_loop(t.ref[layout.db], want.db, want.db_scale, 1e-300L, what + " db");
        }
}

// ---- the reference against finite differences of the forward ------------------------------

// The forward in long double from double parameters: y = (x - mean) * rstd * w + b (LayerNorm) or
// x * rstd * w (RMSNorm), and the loss sum(dy * y) whose gradients the backward computes.
struct Forward {
  bool layer;
  std::int64_t m, n;
  double eps;
  std::vector<double> x, w, b, dy;

  LD loss() const {
    LD loss = 0;
    for (std::int64_t r = 0; r < m; ++r) {
      LD mean = 0, sq = 0;
      if (layer)
        for (std::int64_t j = 0; j < n; ++j) mean += x[std::size_t(r * n + j)];
      mean /= n;
      for (std::int64_t j = 0; j < n; ++j) sq += (x[std::size_t(r * n + j)] - mean) * (x[std::size_t(r * n + j)] - mean);
      const LD rstd = 1 / std::sqrt(sq / n + eps);
      for (std::int64_t j = 0; j < n; ++j) {
        const LD y = (x[std::size_t(r * n + j)] - mean) * rstd * w[std::size_t(j)] + (layer ? b[std::size_t(j)] : 0.0);
        loss += dy[std::size_t(r * n + j)] * y;
      }
    }
    return loss;
  }

  // d loss / d v[k] by central differences, for every k.
  std::vector<double> finite_differences(std::vector<double>& v) const {
    std::vector<double> grad(v.size());
    for (std::size_t k = 0; k < v.size(); ++k) {
      const double saved = v[k], h = 1e-4 * std::max(1.0, std::fabs(saved));
      v[k] = saved + h;
      const LD up = loss();
      v[k] = saved - h;
      const LD down = loss();
      v[k] = saved;
      grad[k] = double((up - down) / (2 * h));
    }
    return grad;
  }
};

void expect_gradient(const char* what, const std::vector<double>& got, const std::vector<double>& want) {
  double scale = 0;
  for (double v : want) scale = std::max(scale, std::fabs(v));
  for (std::size_t k = 0; k < got.size(); ++k) EXPECT_NEAR(got[k], want[k], 1e-5 * (1 + scale)) << what << "[" << k << "]";
}

TEST(RowsBwdReference, MatchesFiniteDifferencesOfTheForward) {
  for (const auto& [op, layout] : both_ops())
    for (const Params& params :
         std::vector<Params>{{{"m", 3}, {"n", 5}}, {{"m", 4}, {"n", 1}}, {{"m", 2}, {"n", 9}, {"eps", 0.25}}}) {
      const Trial t = test::reference_trial(*op, op->make_problem(params), Distribution::normal, 3);
      SCOPED_TRACE(t.p.id());
      Forward f{layout.layer(), t.p.dim("m"), t.p.dim("n"), t.p.real("eps"), {}, {}, {}, {}};
      f.x.assign(t.in[layout.x].begin(), t.in[layout.x].end());
      f.w.assign(t.in[layout.w].begin(), t.in[layout.w].end());
      f.b.assign(std::size_t(f.n), 0.25);
      f.dy.assign(t.in[layout.dy].begin(), t.in[layout.dy].end());
      expect_gradient("dx", t.ref[layout.dx], f.finite_differences(f.x));
      expect_gradient("dw", t.ref[layout.dw], f.finite_differences(f.w));
      if (layout.layer()) expect_gradient("db", t.ref[layout.db], f.finite_differences(f.b));
    }
}

// ---- the statistics the draws save ---------------------------------------------------------

TEST(RowsBwdSpec, DrawsTheStatisticsOfTheStoredX) {
  for (const auto& [op, layout] : both_ops())
    for (DType dtype : {DType::f32, DType::bf16, DType::f16})
      for (Distribution d : {Distribution::normal, Distribution::offset, Distribution::wide}) {
        const Problem p = op->make_problem({{"m", 6}, {"n", 37}}, dtype);
        SCOPED_TRACE(p.id() + " " + distribution_name(d));
        HostTensors in = allocate_host_inputs(op->tensors(p));
        op->draw_inputs(p, d, 5, in);  // before the harness rounds: x must already be stored
        EXPECT_EQ(op->tensors(p)[std::size_t(layout.rstd)].dtype, DType::f32);
        EXPECT_EQ(op->tensors(p)[std::size_t(layout.x)].dtype, storage_type(dtype));
        for (float v : in[layout.x]) ASSERT_EQ(round_to_storage(v, storage_type(dtype)), v);
        for (std::int64_t r = 0; r < 6; ++r) {
          const float* row = in[layout.x].data() + r * 37;
          LD mean = 0, sq = 0;
          for (std::int64_t j = 0; j < 37; ++j) mean += row[j];
          mean = layout.layer() ? mean / 37 : 0;
          for (std::int64_t j = 0; j < 37; ++j) sq += (row[j] - mean) * (row[j] - mean);
          const LD rstd = 1 / std::sqrt(sq / 37 + LD(1e-5));
          EXPECT_NEAR(in[layout.rstd][std::size_t(r)], double(rstd), 1e-7 * double(rstd));
          if (layout.layer()) {
            EXPECT_NEAR(in[layout.mean][std::size_t(r)], double(mean), 1e-7 * std::fabs(double(mean)) + 1e-30);
          }
        }
      }
}

// ---- the tolerance claims ------------------------------------------------------------------

enum class Fault { none, mean_g_dropped, xhat_term_dropped, dw_from_x, last_row_dropped };

const char* fault_name(Fault f) {
  switch (f) {
    case Fault::none: return "none";
    case Fault::mean_g_dropped: return "mean_g_dropped";
    case Fault::xhat_term_dropped: return "xhat_term_dropped";
    case Fault::dw_from_x: return "dw_from_x";
    case Fault::last_row_dropped: return "last_row_dropped";
  }
  return "?";
}

// A kernel's results modelled on the CPU: fp32 arithmetic throughout, every sum sequential (the
// worst order a kernel may take), stored in the problem's type; or one of the planted faults.
HostTensors fp32_backward(const Layout& l, const Trial& t, Fault fault) {
  const std::int64_t m = t.p.dim("m"), n = t.p.dim("n");
  const DType st = storage_type(t.p.dtype);
  const auto& x = t.in[l.x];
  const auto& w = t.in[l.w];
  const auto& dy = t.in[l.dy];
  HostTensors out;
  out.data.resize(t.decls.size());
  out[l.dx].resize(std::size_t(m * n));
  std::vector<float> dw(std::size_t(n), 0.0f), db(std::size_t(n), 0.0f);
  const float inv_n = 1.0f / float(n);
  for (std::int64_t r = 0; r < m; ++r) {
    const float mean = l.layer() ? t.in[l.mean][std::size_t(r)] : 0.0f, rstd = t.in[l.rstd][std::size_t(r)];
    const auto xhat = [&](std::int64_t j) {
      const float v = x[std::size_t(r * n + j)];
      return l.layer() ? (v - mean) * rstd : v * rstd;
    };
    float sg = 0, sgx = 0;
    for (std::int64_t j = 0; j < n; ++j) {
      const float g = dy[std::size_t(r * n + j)] * w[std::size_t(j)];
      sg += g, sgx += g * xhat(j);
    }
    const float mg = l.layer() && fault != Fault::mean_g_dropped ? sg * inv_n : 0.0f;
    const float mgx = fault == Fault::xhat_term_dropped ? 0.0f : sgx * inv_n;
    for (std::int64_t j = 0; j < n; ++j) {
      const std::size_t k = std::size_t(r * n + j);
      out[l.dx][k] = round_to_storage(rstd * (dy[k] * w[std::size_t(j)] - mg - xhat(j) * mgx), st);
      if (fault == Fault::last_row_dropped && r == m - 1 && m > 1) continue;
      dw[std::size_t(j)] += dy[k] * (fault == Fault::dw_from_x ? x[k] : xhat(j));
      db[std::size_t(j)] += dy[k];
    }
  }
  round_to_storage(dw, st);
  round_to_storage(db, st);
  out[l.dw] = dw;
  if (l.layer()) out[l.db] = db;
  return out;
}

// How far each output lands from its bound with the op's real tolerances: the larger of normwise /
// bound and elementwise / bound (above 1 fails; infinite for unwritten or misplaced NaN/Inf), per
// output in declaration order.
std::vector<std::pair<std::string, double>> bound_ratios(const OpSpec& op, const Layout& l, const Trial& t,
                                                         const HostTensors& out) {
  const TrialTolerances tol = trial_tolerances(op, t.p, t.decls, t.in, t.ref);
  std::vector<std::pair<std::string, double>> ratios;
  for (int i : {l.dx, l.dw, l.db}) {
    if (i < 0) continue;
    const Tolerance& b = tol.per_tensor[std::size_t(i)];
    const TensorErrors e = compare_tensor(t.decls[std::size_t(i)].name, out[i], t.ref[i], b);
    ratios.emplace_back(e.name, e.unwritten || e.nonfinite_mismatch
                                    ? INFINITY
                                    : std::max(e.normwise / b.normwise, e.elementwise / b.elementwise));
  }
  return ratios;
}

double worst_ratio(const OpSpec& op, const Layout& l, const Trial& t, const HostTensors& out) {
  double worst = 0;
  for (const auto& [name, r] : bound_ratios(op, l, t, out)) worst = std::max(worst, r);
  return worst;
}

// Where a fault cannot show, and why:
// - special with one row: that row is NaN, so are dx and dw;
// - special otherwise: a NaN in x makes its row's xhat NaN, so every column of dw is NaN by
//   contract (RMSNorm has no db to show a dropped row);
// - LayerNorm at N = 1: xhat = 0, so the xhat term is 0 whatever is done with it;
// - `wide` rows of 1 to 3 elements: one element dominates, xhat is tiny at the others, and the xhat
//   term only moves the dominant element's dx, which sits at rstd ~ 1 / max|x|, far under the other
//   rows' dx (the same hides the last row's share of RMSNorm's dw at N = 1);
// - RMSNorm on `tiny_var`: rstd = 1 / sqrt(1 + eps) to 5e-6, so xhat is x;
// - LayerNorm on `tiny_var` in a narrow type with a handful of rows: the storage spacing at 1
//   (bf16 4e-3, fp16 1e-3) quantizes the 1e-3 spread into a few levels, and mean(g xhat) of so few
//   rows can land under the output's rounding;
// - a dropped row with thousands of rows and a few columns: it moves a column sum by about
//   1 / sqrt(M) of itself, while the bound grows as growth(M) times the ratio (~ sqrt(M)); with
//   many columns the elementwise check still finds the column it moved most.
bool fault_can_show(Fault f, const Layout& l, const Problem& p, Distribution d) {
  const std::int64_t m = p.dim("m"), n = p.dim("n");
  if (d == Distribution::special && m == 1) return false;
  switch (f) {
    case Fault::none: return false;
    case Fault::mean_g_dropped: return l.layer();
    case Fault::xhat_term_dropped:
      if (d == Distribution::wide && n <= 3) return false;
      return l.layer() ? n > 1 && !(d == Distribution::tiny_var && is_narrow(p.dtype) && m <= 5) : true;
    case Fault::dw_from_x: return d != Distribution::special && !(!l.layer() && d == Distribution::tiny_var);
    case Fault::last_row_dropped:
      if (m == 1 || (m > 3000 && n < 8)) return false;
      return l.layer() || (d != Distribution::special && !(n == 1 && d == Distribution::wide));
  }
  return false;
}

// The quick problems, short enough for the CPU (every row length the fused plans distinguish up to
// 20000 elements).
std::vector<Problem> cpu_quick(const OpSpec& op) {
  std::vector<Problem> out;
  for (const Problem& p : op.problems_in("quick"))
    if (p.dim("m") * p.dim("n") <= 1 << 21 && p.dim("n") <= 20000) out.push_back(p);
  return out;
}

TEST(RowsBwdTolerance, Float32ArithmeticPassesEveryDistribution) {
  for (const auto& [op, layout] : both_ops())
    for (const Problem& p : cpu_quick(*op))
      for (Distribution d : all_distributions()) {
        SCOPED_TRACE(p.id() + " " + distribution_name(d));
        const Trial t = test::reference_trial(*op, p, d, 1);
        // fp32: measured at most 0.22 (dx's elementwise check, at an element that cancels to
        // near zero in a row of 3 or 64). A narrow output correctly rounded sits at up to 0.8 of
        // its normwise bound on its own (one element off by u against 1.25 u).
        EXPECT_LT(worst_ratio(*op, layout, t, fp32_backward(layout, t, Fault::none)), p.dtype == DType::f32 ? 0.4 : 0.9);
      }
}

TEST(RowsBwdTolerance, PlantedFaultsFail) {
  for (const auto& [op, layout] : both_ops())
    for (const Problem& p : cpu_quick(*op))
      for (Distribution d : all_distributions()) {
        const Trial t = test::reference_trial(*op, p, d, 2);
        for (Fault f : {Fault::mean_g_dropped, Fault::xhat_term_dropped, Fault::dw_from_x, Fault::last_row_dropped}) {
          if (!fault_can_show(f, layout, p, d)) continue;
          SCOPED_TRACE(p.id() + " " + distribution_name(d) + " " + fault_name(f));
          EXPECT_GT(worst_ratio(*op, layout, t, fp32_backward(layout, t, f)), 1.0);
        }
      }
}

// The ratios behind the claims above: --gtest_also_run_disabled_tests prints them, then the largest
// ratio of a correct computation per storage type and the smallest of a fault that can show.
TEST(RowsBwdTolerance, DISABLED_PrintRatios) {
  std::map<std::string, double> worst_correct, least_fault;
  for (const auto& [op, layout] : both_ops())
    for (const Problem& p : cpu_quick(*op))
      for (Distribution d : all_distributions()) {
        const Trial t = test::reference_trial(*op, p, d, 1);
        const std::string type = dtype_name(p.dtype);
        std::printf("%-44s %-9s", p.id().c_str(), distribution_name(d).c_str());
        for (const auto& [name, r] : bound_ratios(*op, layout, t, fp32_backward(layout, t, Fault::none))) {
          std::printf(" %s %6.3g", name.c_str(), r);
          worst_correct[type] = std::max(worst_correct[type], r);
        }
        std::printf(" | faults:");
        for (Fault f : {Fault::mean_g_dropped, Fault::xhat_term_dropped, Fault::dw_from_x, Fault::last_row_dropped}) {
          const double r = worst_ratio(*op, layout, t, fp32_backward(layout, t, f));
          std::printf(" %s %9.3g", fault_name(f), r);
          if (fault_can_show(f, layout, p, d))
            least_fault[fault_name(f)] = least_fault.count(fault_name(f)) ? std::min(least_fault[fault_name(f)], r) : r;
        }
        std::printf("\n");
      }
  for (const auto& [type, r] : worst_correct) std::printf("correct, %s: at most %.3g of the bound\n", type.c_str(), r);
  for (const auto& [fault, r] : least_fault) std::printf("%s: at least %.3g times the bound\n", fault.c_str(), r);
}

// ---- the specs -----------------------------------------------------------------------------

TEST(RowsBwdSpec, SuitesHoldTheAskedShapes) {
  for (const auto& [op, layout] : both_ops()) {
    SCOPED_TRACE(op->name());
    std::set<std::string> ids;
    for (const Problem& p : op->problems_in("")) {
      EXPECT_TRUE(ids.insert(p.id()).second) << "twice: " << p.id();
      EXPECT_EQ(op->parse_problem_id(p.id()).id(), p.id());
    }
    for (const Problem& p : op->problems_in("quick")) EXPECT_LT(p.dim("m") * p.dim("n"), 2 << 20) << p.id();
    EXPECT_EQ(op->problems_in("quick").size() % 3, 0u);  // every quick shape in fp32, bf16 and fp16
    const std::vector<Problem> sweep = op->problems_in("sweep");
    ASSERT_EQ(sweep.size(), 11u);
    for (const Problem& p : sweep) {
      EXPECT_EQ(p.dtype, DType::bf16);
      EXPECT_EQ(p.dim("m") * p.dim("n"), 1LL << 28);
    }
    std::set<std::string> llm;
    for (const Problem& p : op->problems_in("llm")) llm.insert(p.id());
    for (const char* dtype : {"fp32", "bf16", "fp16"})
      for (const char* shape : {"m4096_n4096", "m32768_n8192", "m16384_n16384"})
        EXPECT_EQ(llm.count(op->name() + "/" + shape + "/" + dtype), 1u) << shape << " " << dtype;
    EXPECT_EQ(llm.size(), 3u * 3u + 11u - 2u);
  }
}

// The compulsory bytes alone: the partial column sums depend on the design (fused_tma's clusters keep
// 7 bands at 1024 x 262144), so counting one band an SM would credit every long row with bytes it
// need not move, and a kernel that moves fewer would read as faster than the copy.
TEST(RowsBwdSpec, ByteModelCountsTheTensorsAlone) {
  for (const auto& [op, layout] : both_ops()) {
    const Problem p = op->make_problem({{"m", 32768}, {"n", 8192}}, DType::bf16);
    const WorkModel w = op->work(p);
    const double e = 32768.0 * 8192, n = 8192, m = 32768;
    const int sums = layout.column_sums();
    EXPECT_DOUBLE_EQ(w.bytes, 2 * (3 * e + (1 + sums) * n) + 4 * m * (layout.layer() ? 2 : 1));
    EXPECT_NE(w.formula.find("partials not counted"), std::string::npos) << w.formula;
    const Problem one = op->make_problem({{"m", 3}, {"n", 5}});
    EXPECT_DOUBLE_EQ(op->work(one).bytes, 4 * (3 * 15.0 + (1 + sums) * 5) + 4 * 3.0 * (layout.layer() ? 2 : 1));
    const Problem longest = op->make_problem({{"m", 1024}, {"n", 262144}}, DType::bf16);
    EXPECT_DOUBLE_EQ(op->work(longest).bytes,
                     2 * (3 * 1024.0 * 262144 + (1 + sums) * 262144) + 4 * 1024.0 * (layout.layer() ? 2 : 1));
  }
}

TEST(RowsBwdSpec, BadParametersAreUsageErrors) {
  for (const auto& [op, layout] : both_ops()) {
    EXPECT_THROW(op->make_problem({{"m", 0}, {"n", 4}}), UsageError);
    EXPECT_THROW(op->make_problem({{"m", 4}, {"n", 2.5}}), UsageError);
    EXPECT_THROW(op->make_problem({{"m", 4}}), UsageError);
    EXPECT_THROW(op->make_problem({{"m", 4}, {"n", 4}, {"eps", -1}}), UsageError);
    EXPECT_THROW(op->make_problem({{"m", 4}, {"n", 4}, {"k", 4}}), UsageError);
    EXPECT_THROW(op->make_problem({{"m", 1 << 21}, {"n", 1 << 20}}), UsageError);  // 2^41 elements
    EXPECT_THROW(op->make_problem({{"m", 4}, {"n", 4}}, DType::tf32), UsageError);
    EXPECT_EQ(op->make_problem({{"m", 4}, {"n", 4}, {"eps", 1e-6}}, DType::f16).id(), op->name() + "/m4_n4_eps1e-06/fp16");
  }
}

TEST(RowsBwdSpec, EveryTensorIsWhereTheLayoutSays) {
  for (const auto& [op, layout] : both_ops()) {
    const auto decls = op->tensors(op->make_problem({{"m", 3}, {"n", 5}}, DType::bf16));
    ASSERT_EQ(decls.size(), layout.layer() ? 8u : 6u);
    EXPECT_EQ(decls[std::size_t(layout.x)].name, "x");
    EXPECT_EQ(decls[std::size_t(layout.dy)].name, "dy");
    EXPECT_EQ(decls[std::size_t(layout.rstd)].name, "rstd");
    EXPECT_EQ(decls[std::size_t(layout.dx)].role, TensorRole::output);
    EXPECT_EQ(decls[std::size_t(layout.dw)].dtype, DType::bf16);
    EXPECT_EQ(decls[std::size_t(layout.dw)].elements, 5);
    if (layout.layer()) {
      EXPECT_EQ(decls[std::size_t(layout.mean)].dtype, DType::f32);
      EXPECT_EQ(decls[std::size_t(layout.db)].name, "db");
    }
  }
}

}  // namespace
}  // namespace nb::rows_bwd
