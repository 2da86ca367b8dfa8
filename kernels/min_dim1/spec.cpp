#include "kernels/min_dim1/spec.hpp"

#include "baselines/cpu/min_reference.hpp"
#include "baselines/gpu/row_references.hpp"
#include "harness/validation/executor.hpp"

namespace nb {
namespace min_dim1 {

Shape shape_of(const Problem& p) { return {p.dim("b"), p.dim("c")}; }

namespace {

class MinDim1Spec final : public OpSpec {
 public:
  MinDim1Spec() {
    for (auto& v : make_variants()) add_variant(std::move(v));
  }

  std::string name() const override { return "min_dim1"; }
  std::string formula() const override { return "y[b,0] = min_c x[b,c] (keepdim; NaN propagates)"; }

  std::vector<ParamDecl> param_decls() const override {
    return {{"b", true, 0, true, 1, 1e9, "rows (batch)"}, {"c", true, 0, true, 1, 1e9, "row length (reduced)"}};
  }

  std::vector<NamedProblem> named_problems() const override {
    return {
        {{{"b", 128}, {"c", 256}}, {"kb"}, "GEMM + GroupNorm + min pipeline (L2#75), original size"},
        {{{"b", 1024}, {"c", 8192}}, {"kb"}, "GEMM + GroupNorm + min pipeline (L2#75), enlarged"},
        {{{"b", 1}, {"c", 1}}, {"quick"}, "one element"},
        {{{"b", 3}, {"c", 1000}}, {"quick"}, "odd rows"},
        {{{"b", 7}, {"c", 4097}}, {"quick"}, "row length not a multiple of 4"},
        {{{"b", 5}, {"c", 33}}, {"quick"}, "one element past a warp"},
        {{{"b", 4096}, {"c", 512}}, {"quick"}, "many short rows"},
    };
  }

  std::vector<TensorDecl> tensors(const Problem& p) const override {
    const Shape s = shape_of(p);
    return {{"x", TensorRole::input, s.elements()}, {"y", TensorRole::output, s.b}};
  }

  std::vector<InputDraw> input_draws(const Problem&, Distribution d) const override { return {InputDraw::of(kX, d, 0)}; }

  void reference(const Problem& p, const HostTensors& in, ReferenceTensors& out) const override {
    const Shape s = shape_of(p);
    cpu::min_dim1_reference(s.b, s.c, in[kX].data(), out[kY].data());
  }

  bool has_reference_program() const override { return true; }
  ReferenceConditions reference_program(const Problem& p, const ProgramTensors& t, const ProgramReference& out,
                                        Executor& ex) const override {
    const Shape s = shape_of(p);
    ex.visit([&](auto& e) { gpu::min_rows(e, t.in(kX), out[kY], s.b, s.c); });
    return {};
  }
  std::vector<SliceFamily> slice_families(const Problem& p) const override {
    return {row_slices(*this, p, "b", p.dim("c"), {RowLayout::rows, RowLayout::per_row}, {kY})};
  }

  WorkModel work(const Problem& p) const override {
    const Shape s = shape_of(p);
    return {4.0 * double(s.elements() + s.b), double(s.elements()), "read x + write y: 4*(B*C + B)"};
  }

  std::vector<NotApplicable> not_applicable() const override {
    return {{"welford", "a min has no statistics to stabilise"}};
  }
};

}  // namespace
}  // namespace min_dim1

std::unique_ptr<OpSpec> make_min_dim1_op() { return std::make_unique<min_dim1::MinDim1Spec>(); }

}  // namespace nb
