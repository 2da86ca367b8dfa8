// The op spec of rmsnorm_nchw (KernelBench L1#36): parameters, named problems, tensors, inputs,
// the float64 reference and the byte model.
#include "kernels/rmsnorm_nchw/spec.hpp"

#include <sstream>

#include "baselines/cpu/rmsnorm_reference.hpp"
#include "baselines/gpu/row_references.hpp"
#include "harness/validation/executor.hpp"
#include "kernels/rms/rms_contract.hpp"
#include "harness/op_spec.hpp"
#include "kernels/ops.hpp"

namespace nb::rmsnorm_nchw {
namespace {

// Elements of x (and of y): every offset and byte count stays far inside int64 and size_t.

Params nchw(double n, double c, double h, double w) { return {{"n", n}, {"c", c}, {"h", h}, {"w", w}}; }

std::vector<NamedProblem> kb_problems() {
  return {{nchw(16, 64, 256, 256), {"kb"}, "KernelBench L1#36 original"},
          {nchw(112, 64, 512, 512), {"kb"}, "KernelBench L1#36 enlarged"}};
}

std::vector<NamedProblem> sweep_problems() {
  std::vector<NamedProblem> out;
  for (int hw : {32, 64, 128, 256, 512})
    out.push_back({nchw(16, 64, hw, hw), {"sweep"}, "H*W scaling at C=64"});
  out.push_back({nchw(16, 3, 512, 512), {"sweep"}, "C=3 (RGB): little work per position"});
  out.push_back({nchw(16, 256, 256, 256), {"sweep"}, "C=256: beyond the register tile"});
  out.push_back({nchw(2, 2048, 128, 128), {"sweep"}, "C=2048: two passes over x"});
  return out;
}

// Small and odd shapes for tests and the sanitizer, each under 2M elements.
std::vector<NamedProblem> quick_problems() {
  return {{nchw(1, 1, 1, 1), {"quick"}, "one element"},
          {nchw(3, 1, 1, 5), {"quick"}, "C=1: y = x / sqrt(x^2 + eps)"},
          {nchw(3, 3, 7, 9), {"quick"}, "H*W=63: no 4-float packs"},
          {nchw(1, 63, 17, 33), {"quick"}, "C=63, H*W=561"},
          {nchw(2, 64, 32, 32), {"quick"}, "C=64, H*W multiple of 4: packed loads"},
          {nchw(3, 65, 16, 16), {"quick"}, "C=65: one channel past a power of two"},
          {nchw(2, 129, 8, 8), {"quick"}, "C=129: beyond the register tile, packed"},
          {nchw(1, 200, 5, 7), {"quick"}, "C=200, H*W=35: beyond the register tile, scalar"},
          {nchw(3, 16, 64, 100), {"quick"}, "several tiles per image, last one partial"}};
}

class RmsNormNchwOp final : public OpSpec {
 public:
  RmsNormNchwOp() {
    for (auto& v : make_variants()) add_variant(std::move(v));
  }

  std::string name() const override { return "rmsnorm_nchw"; }
  std::string formula() const override { return "y = x / sqrt(mean(x^2 over dim 1) + eps), x of shape (N,C,H,W)"; }

  std::vector<ParamDecl> param_decls() const override {
    return {{"n", true, 0, true, 1, 1e12, "batch size N, >= 1"},
            {"c", true, 0, true, 1, 1048576, "channels C, the reduced dim, 1..2^20"},
            {"h", true, 0, true, 1, 1e12, "height H, >= 1"},
            {"w", true, 0, true, 1, 1e12, "width W, >= 1"},
            {"eps", false, 1e-5, false, 0, 1, "added to the mean square before the square root, 0..1"}};
  }

  std::string check(const Params& p) const override {
    return rms::element_limit(p.real("n") * p.real("c") * p.real("h") * p.real("w"), "N*C*H*W");
  }

  std::vector<NamedProblem> named_problems() const override {
    return rms::all_suites({kb_problems(), sweep_problems(), quick_problems()});
  }

  std::vector<TensorDecl> tensors(const Problem& p) const override {
    const std::int64_t elements = Shape::of(p).elements();
    const std::vector<std::int64_t> nchw = {p.dim("n"), p.dim("c"), p.dim("h"), p.dim("w")};
    return {{"x", TensorRole::input, elements, nchw}, {"y", TensorRole::output, elements, nchw}};
  }

  std::vector<InputDraw> input_draws(const Problem&, Distribution d) const override { return {InputDraw::of(X, d, 1)}; }

  void reference(const Problem& p, const HostTensors& in, ReferenceTensors& out) const override {
    const Shape s = Shape::of(p);
    cpu::rmsnorm_nchw_reference(in[X].data(), out[Y].data(), s.n, s.c, s.plane(), p.real("eps"));
  }

  bool has_reference_program() const override { return true; }
  ReferenceConditions reference_program(const Problem& p, const ProgramTensors& t, const ProgramReference& out,
                                        Executor& ex) const override {
    const Shape s = Shape::of(p);
    ex.visit([&](auto& e) { gpu::rmsnorm_nchw(e, t.in(X), out[Y], s.n, s.c, s.plane(), p.real("eps")); });
    return {};
  }

  // A slice is one position of one image: its C values, a plane apart; the slice problem holds
  // them as images of one position (N = slices, H = W = 1).
  std::vector<SliceFamily> slice_families(const Problem& p) const override {
    const Shape s = Shape::of(p);
    SliceFamily f;
    f.unit = "position";
    f.count = s.n * s.plane();
    f.problem = [this, p](const std::vector<std::int64_t>& slices) {
      Params params = p.params;
      params.set("n", double(slices.size()));
      params.set("h", 1);
      params.set("w", 1);
      return make_problem(params, p.dtype);
    };
    f.runs = [s](int, const std::vector<std::int64_t>& slices) {
      std::vector<ElementRun> runs;
      for (std::int64_t slice : slices)
        for (std::int64_t ch = 0; ch < s.c; ++ch) runs.push_back({(slice / s.plane() * s.c + ch) * s.plane() + slice % s.plane(), 1});
      return runs;
    };
    f.slice_of = [s](int, std::int64_t e) { return e / (s.c * s.plane()) * s.plane() + e % s.plane(); };
    f.checked = {Y};
    return {f};
  }

  double reduction_length(const Problem& p) const override { return double(p.dim("c")); }

  WorkModel work(const Problem& p) const override {
    const double elements = static_cast<double>(Shape::of(p).elements());
    return {2.0 * 4.0 * elements, 3.0 * elements,
            "read x + write y: 2 * 4 * N*C*H*W bytes; flops: square-add and scale, 3 per element"};
  }

  std::vector<StressDistribution> stress() const override { return {rms::wide_overflows("every y of that position")}; }
  std::vector<NotApplicable> not_applicable() const override { return {rms::welford_not_applicable()}; }
};

}  // namespace

Shape Shape::of(const Problem& p) {
  return {p.dim("n"), p.dim("c"), p.dim("h"), p.dim("w"), static_cast<float>(p.real("eps"))};
}

}  // namespace nb::rmsnorm_nchw

namespace nb {
std::unique_ptr<OpSpec> make_rmsnorm_nchw_op() { return std::make_unique<rmsnorm_nchw::RmsNormNchwOp>(); }
}  // namespace nb
