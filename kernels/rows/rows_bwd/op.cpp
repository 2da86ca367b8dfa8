// The op spec both row-layout normalization backwards share: parameters, named problems, tensors,
// the draws (with the statistics a forward pass saved), the float64 reference (Eigen's, and the
// reference program with its slice families), the byte model and the tolerance scaling.
#include <sstream>

#include "baselines/cpu/norm_rows_bwd_conditions.hpp"
#include "baselines/cpu/norm_rows_bwd_reference.hpp"
#include "baselines/gpu/rows_bwd_references.hpp"
#include "harness/validation/executor.hpp"
#include "kernels/rms/rms_contract.hpp"
#include "kernels/rows/rows_bwd/rows_bwd.hpp"
#include "kernels/rows/rows_bwd/slice_families.hpp"

namespace nb::rows_bwd {
namespace {

Params rows(double m, double n) { return {{"m", m}, {"n", n}}; }

const std::vector<DType> kAllTypes = {DType::f32, DType::bf16, DType::f16};

// LLM shapes in every storage type. The bf16 twins of the sweep's shapes are listed by the sweep
// (in both suites), so no problem id appears twice.
std::vector<NamedProblem> llm_problems() {
  return {{rows(4096, 4096), {"llm"}, "4096 tokens x hidden 4096", kAllTypes},
          {rows(32768, 8192), {"llm"}, "32768 tokens x hidden 8192", {DType::f32, DType::f16}},
          {rows(16384, 16384), {"llm"}, "16384 tokens x hidden 16384", {DType::f32, DType::f16}}};
}

// bf16 row length scaling at M*N = 2^28 (512 MiB of x).
std::vector<NamedProblem> sweep_problems() {
  std::vector<NamedProblem> out;
  for (double n = 256; n <= 262144; n *= 2)
    out.push_back({rows(268435456 / n, n), {"llm", "sweep"}, "bf16 row length scaling at M*N = 2^28", {DType::bf16}});
  return out;
}

// Small and odd shapes for tests and the sanitizer, each under 2M elements.
std::vector<NamedProblem> quick_problems() {
  const auto quick = [](double m, double n, const char* note) { return NamedProblem{rows(m, n), {"quick"}, note, kAllTypes}; };
  return {quick(1, 1, "one element"),
          quick(7, 1, "N=1: LayerNorm's dx and dw are 0; RMSNorm's dx is what the rounding of rstd leaves"),
          quick(5, 3, "N=3"),
          quick(4, 33, "N=33: one past a warp"),
          quick(1, 1000, "one row: a single band"),
          quick(7, 1000, "N=1000: 16-byte packs in every type"),
          quick(300, 4096, "hidden 4096, several bands"),
          quick(5, 4097, "N=4097: odd, one-element packs"),
          quick(64, 20000, "N=20000: a cluster of blocks per row, 16 bands"),
          quick(6, 65536, "N=65536: in registers over a cluster of 8 CTAs of 1024 lanes"),
          quick(4, 131072, "N=131072: in registers over a cluster of 16 CTAs"),
          quick(24, 65537, "N=65537: odd, streamed over a cluster, 6 bands"),
          quick(3, 100003, "N=100003: odd, streamed over a cluster"),
          quick(2, 262144, "N=262144: the sweep's longest row"),
          quick(3000, 64, "3000 short rows: dw and db sum 3000 terms per column"),
          quick(1500, 1000, "1500 rows: many bands of partial column sums"),
          quick(4099, 3, "odd M, N=3")};
}

class RowsBwdOp final : public OpSpec {
 public:
  RowsBwdOp(const Layout& layout, std::string name, std::vector<std::unique_ptr<Variant>> variants)
      : layout_(layout), name_(std::move(name)) {
    for (auto& v : variants) add_variant(std::move(v));
  }

  std::string name() const override { return name_; }
  std::string formula() const override {
    if (layout_.layer())
      return "LayerNorm backward over the last dim of x (M,N): xhat = (x - mean) * rstd, g = dy * w, "
             "dx = rstd * (g - mean(g) - xhat * mean(g * xhat)), dw = sum_rows(dy * xhat), db = sum_rows(dy)";
    return "RMSNorm backward over the last dim of x (M,N): xhat = x * rstd, g = dy * w, "
           "dx = rstd * (g - xhat * mean(g * xhat)), dw = sum_rows(dy * xhat)";
  }

  std::vector<ParamDecl> param_decls() const override {
    return {{"m", true, 0, true, 1, 1e12, "rows M (tokens), >= 1"},
            {"n", true, 0, true, 1, 1e12, "row length N (hidden size), the normalized dim, >= 1"},
            {"eps", false, 1e-5, false, 0, 1, "the forward's eps, in the saved rstd, 0..1"}};
  }
  std::vector<DType> dtypes() const override { return kAllTypes; }
  std::string check(const Params& p) const override { return rms::element_limit(p.real("m") * p.real("n"), "M*N"); }

  std::vector<NamedProblem> named_problems() const override {
    return rms::all_suites({llm_problems(), sweep_problems(), quick_problems()});
  }

  std::vector<TensorDecl> tensors(const Problem& p) const override {
    const Shape s = Shape::of(p);
    const DType st = storage_type(p.dtype);
    using R = TensorRole;
    std::vector<TensorDecl> t(std::size_t(layout_.tensor_count()));
    t[layout_.x] = {"x", R::input, s.elements(), {s.m, s.n}, st};
    t[layout_.w] = {"w", R::input, s.n, {s.n}, st};
    t[layout_.dy] = {"dy", R::input, s.elements(), {s.m, s.n}, st};
    if (layout_.layer()) t[layout_.mean] = {"mean", R::input, s.m, {s.m}, DType::f32};
    t[layout_.rstd] = {"rstd", R::input, s.m, {s.m}, DType::f32};
    t[layout_.dx] = {"dx", R::output, s.elements(), {s.m, s.n}, st};
    t[layout_.dw] = {"dw", R::output, s.n, {s.n}, st};
    if (layout_.layer()) t[layout_.db] = {"db", R::output, s.n, {s.n}, st};
    return t;
  }

  std::vector<InputDraw> input_draws(const Problem&, Distribution d) const override {
    return {InputDraw::of(layout_.x, d, /*salt=*/1), InputDraw::uniform(layout_.w, 0.5f, 1.5f, /*salt=*/2),
            InputDraw::of(layout_.dy, Distribution::normal, /*salt=*/6)};
  }

  // mean and rstd are what a forward pass saved: the float64 statistics of the x the kernel reads
  // (already rounded to the storage type), rounded to fp32.
  void derive_inputs(const Problem& p, std::uint64_t, HostTensors& t) const override {
    const Shape s = Shape::of(p);
    const cpu::RowStatistics stats = layout_.layer() ? cpu::layernorm_row_statistics(t[layout_.x].data(), s.m, s.n, s.eps)
                                                     : cpu::rmsnorm_row_statistics(t[layout_.x].data(), s.m, s.n, s.eps);
    for (std::int64_t r = 0; r < s.m; ++r) {
      t[layout_.rstd][std::size_t(r)] = float(stats.rstd[std::size_t(r)]);
      if (layout_.layer()) t[layout_.mean][std::size_t(r)] = float(stats.mean[std::size_t(r)]);
    }
  }
  void derive_inputs(const Problem& p, std::uint64_t, const ProgramTensors& t, Executor& ex) const override {
    const Shape s = Shape::of(p);
    float* mean = layout_.layer() ? t.mutable_f32(layout_.mean) : nullptr;
    ex.visit([&](auto& e) { gpu::norm_row_statistics(e, t.in(layout_.x), mean, t.mutable_f32(layout_.rstd), s.m, s.n, s.eps); });
  }

  void reference(const Problem& p, const HostTensors& in, ReferenceTensors& out) const override {
    cpu::norm_rows_backward_reference(inputs_of(p, in), {out[layout_.dx].data(), out[layout_.dw].data(),
                                                         layout_.layer() ? out[layout_.db].data() : nullptr});
  }

  bool has_reference_program() const override { return true; }
  // dx, dw (and db) by gpu::norm_rows_backward; the conditions as tensor_condition gives them.
  ReferenceConditions reference_program(const Problem& p, const ProgramTensors& t, const ProgramReference& out,
                                         Executor& ex) const override {
    const gpu::RowsBwdTensors in = program_inputs_of(p, t);
    double* db = layout_.layer() ? out[layout_.db] : nullptr;
    const gpu::RowsBwdConditions own = ex.visit([&](auto& e) {
      gpu::norm_rows_backward(e, in, out[layout_.dx], out[layout_.dw], db);
      return gpu::norm_rows_backward_conditions(e, in, out[layout_.dx], out[layout_.dw], db, comparison(p));
    });
    const Growth growth = growth_of(p);
    ReferenceConditions c;
    c.per_tensor.assign(std::size_t(layout_.tensor_count()), 1.0);
    c.per_tensor[std::size_t(layout_.dx)] = growth.row_length * own.dx;
    c.per_tensor[std::size_t(layout_.dw)] = growth.rows * own.dw;
    if (layout_.layer()) c.per_tensor[std::size_t(layout_.db)] = growth.rows * own.db;
    return c;
  }

  std::vector<SliceFamily> slice_families(const Problem& p) const override {
    return {row_family(*this, p, layout_), column_family(*this, p, layout_)};
  }

  WorkModel work(const Problem& p) const override {
    const Shape s = Shape::of(p);
    const double e = double(s.elements()), n = double(s.n), m = double(s.m);
    const double size = double(dtype_size(storage_type(p.dtype)));
    const int sums = layout_.column_sums();
    // The compulsory bytes alone. The weight gradient's partial column sums are a design's choice,
    // not the problem's: one band an SM (132 on an H100) would move 553 MB more at LayerNorm's
    // 1024 x 262144, where fused_tma keeps one band a cluster of 16 (7 bands, 29 MB); counted,
    // they put that kernel past the copy ceiling (107%, faster_than_light) and every long row's
    // share of it up to 34% too high (docs/notes/memory-bound-round3.md, "Thirty-eighth").
    std::ostringstream text;
    text << "read x, dy + write dx: 3*" << size << "*M*N; read w + write " << (layout_.layer() ? "dw, db: 3" : "dw: 2")
         << "*" << size << "*N; read " << (layout_.layer() ? "mean, rstd: 2" : "rstd: 1")
         << "*4*M; the column sums' partials not counted (a design may keep them on chip); flops "
         << (layout_.layer() ? 13 : 9) << " per element (xhat, g, the two row sums, dx, the column sums)";
    return {size * (3 * e + (1 + sums) * n) + 4.0 * m * (layout_.layer() ? 2 : 1), (layout_.layer() ? 13.0 : 9.0) * e,
            text.str()};
  }

  // Each gradient's own reduction sets its growth (reduction_growth): dx's row sums run over N,
  // dw's and db's column sums over M. reduction_length stays 1, so neither inflates the other's
  // bound (the 2^20 rows of the N = 256 sweep would widen dx's by 128). On top, each gradient's
  // condition (norm_rows_bwd_conditions.hpp): the scale of its terms over its own.
  double tensor_condition(const Problem& p, int tensor, const HostTensors& in,
                          const ReferenceTensors& ref) const override {
    const cpu::RowsBwdInputs inputs = inputs_of(p, in);
    const Growth growth = growth_of(p);
    if (tensor == layout_.dx) return growth.row_length * cpu::input_gradient_condition(inputs, ref[tensor].data());
    if (tensor == layout_.dw) return growth.rows * cpu::weight_gradient_condition(inputs, ref[tensor].data(), comparison(p));
    if (layout_.layer() && tensor == layout_.db)
      return growth.rows * cpu::bias_gradient_condition(inputs, ref[tensor].data(), comparison(p));
    return 1.0;
  }

  // wide: magnitudes across 40 decades. dw's column sums of dy * xhat over thousands of rows cancel
  // across scales that the condition estimate does not cover: on the H100 every variant, cuDNN's
  // too, exceeded dw's bound at 3000 x 64 in fp32 (docs/tolerance.md). Nobody claims it.
  std::vector<StressDistribution> stress() const override {
    return {{Distribution::wide, "magnitudes across 40 decades: the column sums behind dw cancel beyond the "
                                 "condition estimate (every variant and cuDNN exceed dw's bound at 3000 x 64 fp32)"}};
  }

  std::vector<NotApplicable> not_applicable() const override {
    return {{"welford", "the statistics come saved from the forward pass: the backward's sums (of g and g * xhat) "
                        "have no mean to subtract"}};
  }

 private:
  // The growth of each gradient's reduction: over M rows (dw, db) and over a row of N (dx).
  struct Growth {
    double rows, row_length;
  };
  static Growth growth_of(const Problem& p) {
    return {reduction_growth(double(p.dim("m"))), reduction_growth(double(p.dim("n")))};
  }
  cpu::Comparison comparison(const Problem& p) const {
    const Tolerance base = tolerance(p);
    return {base.floor_fraction, base.elementwise / base.normwise};
  }

  gpu::RowsBwdTensors program_inputs_of(const Problem& p, const ProgramTensors& t) const {
    const Shape s = Shape::of(p);
    return {t.in(layout_.x), t.in(layout_.w), t.in(layout_.dy), layout_.layer() ? t.f32(layout_.mean) : nullptr,
            t.f32(layout_.rstd), s.m, s.n};
  }
  cpu::RowsBwdInputs inputs_of(const Problem& p, const HostTensors& in) const {
    const Shape s = Shape::of(p);
    return {in[layout_.x].data(), in[layout_.w].data(), in[layout_.dy].data(),
            layout_.layer() ? in[layout_.mean].data() : nullptr, in[layout_.rstd].data(), s.m, s.n};
  }

  Layout layout_;
  std::string name_;
};

}  // namespace

std::unique_ptr<OpSpec> make_op(const Layout& layout, std::string name, std::vector<std::unique_ptr<Variant>> variants) {
  return std::make_unique<RowsBwdOp>(layout, std::move(name), std::move(variants));
}

}  // namespace nb::rows_bwd
