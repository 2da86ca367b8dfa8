#include "kernels/groupnorm/spec.hpp"

#include "baselines/cpu/groupnorm_reference.hpp"
#include "baselines/gpu/groupnorm_references.hpp"
#include "harness/validation/executor.hpp"

namespace nb {
namespace groupnorm {

Shape shape_of(const Problem& p) {
  return {p.dim("n"), p.dim("c"), p.dim("h"), p.dim("w"), p.dim("g"), p.real("eps")};
}

namespace {

cpu::GroupNormDims dims_of(const Shape& s) { return {s.n, s.c, s.hw(), s.g, s.eps}; }

class GroupNormSpec final : public OpSpec {
 public:
  GroupNormSpec() {
    for (auto& v : make_variants()) add_variant(std::move(v));
  }

  std::string name() const override { return "groupnorm"; }
  std::string formula() const override {
    return "y = (x - mean_ng) / sqrt(var_ng + eps) * gamma[c] + beta[c], stats over C/G channels x H x W";
  }

  std::vector<ParamDecl> param_decls() const override {
    return {{"n", true, 0, true, 1, 1e9, "batch"},
            {"c", true, 0, true, 1, 1e9, "channels"},
            {"h", true, 1, false, 1, 1e9, "height (1 for a 2d (N,C) input)"},
            {"w", true, 1, false, 1, 1e9, "width (1 for a 2d (N,C) input)"},
            {"g", true, 0, true, 1, 1e9, "groups; must divide c"},
            {"eps", false, 1e-5, false, 0, 1, "added to the variance"}};
  }

  std::string check(const Params& p) const override {
    const std::int64_t c = p.dim("c"), g = p.dim("g");
    if (c % g != 0)
      return "c = " + std::to_string(c) + " is not divisible by g = " + std::to_string(g) +
             " (GroupNorm needs whole channels per group)";
    if (double(c / g) * p.real("h") * p.real("w") >= 2147483648.0)  // in double: 1e9^3 does not wrap
      return "a group holds (c/g)*h*w >= 2^31 elements; groups index with 32 bits inside a group";
    return "";
  }

  std::vector<NamedProblem> named_problems() const override {
    const std::vector<std::string> kb = {"kb"}, quick = {"quick"};
    return {
        {{{"n", 16}, {"c", 64}, {"h", 256}, {"w", 256}, {"g", 8}}, kb, "KernelBench L1#35, original size"},
        {{{"n", 112}, {"c", 64}, {"h", 512}, {"w", 512}, {"g", 8}}, kb, "KernelBench L1#35, enlarged: 8 MB groups"},
        {{{"n", 1024}, {"c", 8192}, {"g", 512}}, kb, "GEMM + GroupNorm pipeline (L2#75), 2d input"},
        {{{"n", 2}, {"c", 6}, {"h", 5}, {"w", 7}, {"g", 6}}, quick, "C/G = 1 (instance norm)"},
        {{{"n", 3}, {"c", 4}, {"h", 3}, {"w", 3}, {"g", 1}}, quick, "G = 1 (layer norm over C,H,W)"},
        {{{"n", 5}, {"c", 12}, {"g", 3}}, quick, "H*W = 1"},
        {{{"n", 3}, {"c", 10}, {"h", 17}, {"w", 13}, {"g", 5}}, quick, "small odd spatial size"},
        {{{"n", 4}, {"c", 32}, {"h", 33}, {"w", 31}, {"g", 8}}, quick, "odd spatial, several slices"},
        {{{"n", 2}, {"c", 16}, {"h", 128}, {"w", 129}, {"g", 4}}, quick, "group above one CTA's shared memory"},
        {{{"n", 2}, {"c", 8}, {"h", 256}, {"w", 255}, {"g", 2}}, quick, "1 MB groups: a team of CTAs per group"},
    };
  }

  std::vector<TensorDecl> tensors(const Problem& p) const override {
    const Shape s = shape_of(p);
    return {{"x", TensorRole::input, s.elements()},
            {"gamma", TensorRole::input, s.c},
            {"beta", TensorRole::input, s.c},
            {"y", TensorRole::output, s.elements()}};
  }

  std::vector<InputDraw> input_draws(const Problem&, Distribution d) const override {
    return {InputDraw::of(kX, d, 0), InputDraw::uniform(kGamma, 0.5f, 1.5f, 1), InputDraw::uniform(kBeta, -0.5f, 0.5f, 2)};
  }

  bool has_reference_program() const override { return true; }
  ReferenceConditions reference_program(const Problem& p, const ProgramTensors& t, const ProgramReference& out,
                                        Executor& ex) const override {
    const Shape s = shape_of(p);
    ReferenceConditions c;
    c.instance = ex.visit([&](auto& e) {
      return gpu::groupnorm(e, t.f32(kX), t.f32(kGamma), t.f32(kBeta), out[kY], {s.n, s.c, s.hw(), s.g, s.eps});
    });
    return c;
  }

  // The audit's slices are images: an image's groups hold every channel, so the slice problem is the
  // same op over the sampled images, gamma and beta whole.
  std::vector<SliceFamily> slice_families(const Problem& p) const override {
    using L = RowLayout;
    const Shape s = shape_of(p);
    SliceFamily f = row_slices(*this, p, "n", s.c * s.hw(), {L::rows, L::shared, L::shared, L::rows}, {kY});
    f.unit = "image";
    return {f};
  }

  void reference(const Problem& p, const HostTensors& in, ReferenceTensors& out) const override {
    cpu::groupnorm_reference(dims_of(shape_of(p)), in[kX].data(), in[kGamma].data(), in[kBeta].data(),
                             out[kY].data());
  }

  WorkModel work(const Problem& p) const override {
    const Shape s = shape_of(p);
    const double e = double(s.elements());
    return {4.0 * (2.0 * e + 2.0 * double(s.c)), 8.0 * e,
            "read x + write y + gamma, beta: 4*(2*N*C*H*W + 2*C); x read once"};
  }

  double reduction_length(const Problem& p) const override {
    return double(shape_of(p).group_elements());
  }

  double condition(const Problem& p, const HostTensors& in) const override {
    return cpu::groupnorm_condition(dims_of(shape_of(p)), in[kX].data());
  }

  std::vector<StressDistribution> stress() const override {
    return {{Distribution::offset,
             "sum / sum-of-squares statistics cancel in fp32 at 1e4 + N(0,1) (E[x^2] - mean^2 loses all digits); "
             "Welford or two-pass statistics pass"},
            {Distribution::tiny_var,
             "variance 1e-6 at mean 1: E[x^2] - mean^2 keeps about one of fp32's seven digits"},
            {Distribution::wide,
             "squares of |x| up to 1e20 overflow fp32 (1e40 > FLT_MAX): every fp32 variance becomes Inf, y "
             "collapses to beta"}};
  }
};

}  // namespace
}  // namespace groupnorm

std::unique_ptr<OpSpec> make_groupnorm_op() { return std::make_unique<groupnorm::GroupNormSpec>(); }

}  // namespace nb
