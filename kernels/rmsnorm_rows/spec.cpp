// The op spec of rmsnorm_rows (LLM RMSNorm with a weight): parameters, named problems, tensors,
// inputs, the float64 reference and the byte model.
#include "kernels/rmsnorm_rows/spec.hpp"

#include <sstream>

#include "baselines/cpu/rmsnorm_reference.hpp"
#include "kernels/rmsnorm_common/rms_contract.hpp"
#include "harness/op_spec.hpp"
#include "kernels/ops.hpp"

namespace nb::rmsnorm_rows {
namespace {

// Elements of x (and of y): every offset and byte count stays far inside int64 and size_t.

Params rows(double m, double n) { return {{"m", m}, {"n", n}}; }

std::vector<NamedProblem> kb_problems() {
  return {{rows(4096, 4096), {"kb", "llm"}, "4096 tokens x hidden 4096"},
          {rows(32768, 8192), {"kb", "llm"}, "32768 tokens x hidden 8192"}};
}

// Row length scaling at a fixed 2^26 elements (256 MiB of x), plus an odd length.
std::vector<NamedProblem> sweep_problems() {
  std::vector<NamedProblem> out;
  for (double n = 256; n <= 262144; n *= 2)
    out.push_back({rows(67108864 / n, n), {"sweep"}, "row length scaling at M*N = 2^26"});
  out.push_back({rows(16384, 4097), {"sweep"}, "odd row length: no 16-byte packs"});
  return out;
}

// Small and odd shapes for tests and the sanitizer, each under 2M elements. Multi-row shapes
// have at least 4 rows, so `special` (3 NaN/Inf planted) always leaves a clean row to compare.
std::vector<NamedProblem> quick_problems() {
  return {{rows(1, 1), {"quick"}, "one element"},
          {rows(7, 3), {"quick"}, "N=3"},
          {rows(7, 31), {"quick"}, "N=31: less than a warp"},
          {rows(5, 33), {"quick"}, "N=33: one past a warp"},
          {rows(5, 63), {"quick"}, "N=63"},
          {rows(7, 65), {"quick"}, "N=65"},
          {rows(7, 1000), {"quick"}, "N=1000: packs of 4, lane groups"},
          {rows(64, 256), {"quick"}, "many short rows"},
          {rows(1, 4096), {"quick"}, "one row, one block"},
          {rows(5, 4097), {"quick"}, "N=4097: odd, 1-float packs, 16 per thread"},
          {rows(4, 20000), {"quick"}, "N=20000: packs of 4 over a cluster of 4"},
          {rows(4, 131072), {"quick"}, "N=131072: a cluster of 8 blocks"},
          {rows(4, 65537), {"quick"}, "N=65537: odd, a cluster of 8 blocks"},
          {rows(4, 262147), {"quick"}, "N=262147: odd and too long for registers: streamed"},
          {rows(1, 524288), {"quick"}, "N=524288: too long for registers: streamed"}};
}

class RmsNormRowsOp final : public OpSpec {
 public:
  RmsNormRowsOp() {
    for (auto& v : make_variants()) add_variant(std::move(v));
  }

  std::string name() const override { return "rmsnorm_rows"; }
  std::string formula() const override { return "y = x / sqrt(mean(x^2 over the last dim) + eps) * w, x of shape (M,N)"; }

  std::vector<ParamDecl> param_decls() const override {
    return {{"m", true, 0, true, 1, 1e12, "rows M (tokens), >= 1"},
            {"n", true, 0, true, 1, 1e12, "row length N (hidden size), the reduced dim, >= 1"},
            {"eps", false, 1e-5, false, 0, 1, "added to the mean square before the square root, 0..1"}};
  }

  std::string check(const Params& p) const override {
    return rms::element_limit(p.real("m") * p.real("n"), "M*N");
  }

  std::vector<NamedProblem> named_problems() const override {
    return rms::all_suites({kb_problems(), sweep_problems(), quick_problems()});
  }

  std::vector<TensorDecl> tensors(const Problem& p) const override {
    const Shape s = Shape::of(p);
    return {{"x", TensorRole::input, s.elements(), {s.m, s.n}},
            {"w", TensorRole::input, s.n, {s.n}},
            {"y", TensorRole::output, s.elements(), {s.m, s.n}}};
  }

  void draw_inputs(const Problem&, Distribution d, std::uint64_t seed, HostTensors& host) const override {
    draw(host[X], d, seed, /*salt=*/1);
    draw_uniform(host[W], 0.5f, 1.5f, seed, /*salt=*/2);
  }

  void reference(const Problem& p, const HostTensors& in, ReferenceTensors& out) const override {
    const Shape s = Shape::of(p);
    cpu::rmsnorm_rows_reference(in[X].data(), in[W].data(), out[Y].data(), s.m, s.n, p.real("eps"));
  }

  double reduction_length(const Problem& p) const override { return double(p.dim("n")); }

  WorkModel work(const Problem& p) const override {
    const Shape s = Shape::of(p);
    const double elements = static_cast<double>(s.elements());
    return {4.0 * (2.0 * elements + static_cast<double>(s.n)), 4.0 * elements,
            "read x + write y + read w: 4 * (2*M*N + N) bytes; flops: square-add, scale, weight: 4 per element"};
  }

  std::vector<StressDistribution> stress() const override { return {rms::wide_overflows("the whole row")}; }
  std::vector<NotApplicable> not_applicable() const override { return {rms::welford_not_applicable()}; }
};

}  // namespace

Shape Shape::of(const Problem& p) { return {p.dim("m"), p.dim("n"), static_cast<float>(p.real("eps"))}; }

}  // namespace nb::rmsnorm_rows

namespace nb {
std::unique_ptr<OpSpec> make_rmsnorm_rows_op() { return std::make_unique<rmsnorm_rows::RmsNormRowsOp>(); }
}  // namespace nb
