#include "kernels/softmax/spec.hpp"

#include "baselines/cpu/softmax_reference.hpp"

namespace nb {
namespace softmax {

Shape shape_of(const Problem& p) { return {p.dim("m"), p.dim("n")}; }

namespace {

class SoftmaxSpec final : public OpSpec {
 public:
  SoftmaxSpec() {
    for (auto& v : make_variants()) add_variant(std::move(v));
  }

  std::string name() const override { return "softmax"; }
  std::string formula() const override { return "y[m,:] = exp(x[m,:] - max_m) / sum(exp(x[m,:] - max_m))"; }

  std::vector<ParamDecl> param_decls() const override {
    return {{"m", true, 0, true, 1, 1e9, "rows"}, {"n", true, 0, true, 1, 1e9, "row length (softmax over it)"}};
  }

  std::vector<NamedProblem> named_problems() const override {
    std::vector<NamedProblem> v = {
        {{{"m", 16}, {"n", 16384}}, {"kb"}, "KernelBench L1#23, original size"},
        {{{"m", 4096}, {"n", 393216}}, {"kb"}, "KernelBench L1#23, enlarged: 1.5 MB rows"},
        {{{"m", 3}, {"n", 1}}, {"quick"}, "N = 1: every output is 1"},
        {{{"m", 5}, {"n", 3}}, {"quick"}, "tiny odd row"},
        {{{"m", 7}, {"n", 1000}}, {"quick"}, "odd row, N % 4 = 0 but not a power of two"},
        {{{"m", 4}, {"n", 4097}}, {"quick"}, "odd row just above the warp variant's bound"},
        {{{"m", 3}, {"n", 100000}}, {"quick"}, "row over one CTA's shared memory: cluster of 8 x 49 KB"},
        {{{"m", 3}, {"n", 393216}}, {"quick"}, "KB row length: cluster of 8 x 192 KB"},
        {{{"m", 2}, {"n", 300001}}, {"quick"}, "odd row over 8 x 96 KB: unaligned, cluster of 8 x 147 KB"},
    };
    for (std::int64_t n = 256; n <= 65536; n *= 2)
      v.push_back({{{"m", 32768}, {"n", double(n)}}, {"sweep", "llm"}, "LLM-style rows, 32768 of them"});
    return v;
  }

  std::vector<TensorDecl> tensors(const Problem& p) const override {
    const Shape s = shape_of(p);
    return {{"x", TensorRole::input, s.elements(), {s.m, s.n}}, {"y", TensorRole::output, s.elements(), {s.m, s.n}}};
  }

  void draw_inputs(const Problem&, Distribution d, std::uint64_t seed, HostTensors& t) const override {
    draw(t[kX], d, seed, 0);
  }

  void reference(const Problem& p, const HostTensors& in, ReferenceTensors& out) const override {
    const Shape s = shape_of(p);
    cpu::softmax_reference(s.m, s.n, in[kX].data(), out[kY].data());
  }

  double reduction_length(const Problem& p) const override { return double(p.dim("n")); }

  WorkModel work(const Problem& p) const override {
    const double e = double(shape_of(p).elements());
    return {8.0 * e, 5.0 * e, "read x + write y: 2*4*M*N (x read once)"};
  }

  // condition() stays 1: a kernel that subtracts the row max is shift-invariant, so offset and
  // wide lose nothing beyond expf's few ulps. No stress() either: under wide the float64
  // reference is one-hot-ish and max-subtracting fp32 kernels match it (softmax_reference_test).
};

}  // namespace
}  // namespace softmax

std::unique_ptr<OpSpec> make_softmax_op() { return std::make_unique<softmax::SoftmaxSpec>(); }

}  // namespace nb
