#include "test_op.hpp"

namespace nb::test {
namespace {

void no_launch(const Problem&, const DeviceTensors&, void*, cudaStream_t) {}

}  // namespace

CopyOp::CopyOp() {
  add_variant(make_kernel_variant({"naive", "naive", "one thread per element", no_launch, nullptr, nullptr, {}}));
  add_variant(make_kernel_variant({"fast", "vector", "float4 copies", no_launch, nullptr, nullptr, {}}));
  add_variant(make_kernel_variant({"library", "cublas", "a library copy", no_launch, nullptr, nullptr, {}}));
}

std::vector<ParamDecl> CopyOp::param_decls() const {
  return {{"n", true, 0, true, 1, 1e10, "elements"},
          {"g", true, 1, false, 1, 1e6, "groups"},
          {"eps", false, 1e-5, false, 0, 1, "epsilon"}};
}

std::string CopyOp::check(const Params& p) const { return p.dim("n") % p.dim("g") ? "n must be divisible by g" : ""; }

std::vector<NamedProblem> CopyOp::named_problems() const {
  return {{{{"n", 64}}, {"quick"}, "small"}, {{{"n", 4096}, {"g", 8}}, {"kb", "sweep"}, "large"}};
}

std::vector<TensorDecl> CopyOp::tensors(const Problem& p) const {
  return {{"x", TensorRole::input, p.dim("n")}, {"y", TensorRole::output, p.dim("n")}};
}

void CopyOp::draw_inputs(const Problem&, Distribution d, std::uint64_t seed, HostTensors& t) const {
  draw(t[0], d, seed, 0);
}

void CopyOp::reference(const Problem&, const HostTensors& in, ReferenceTensors& out) const {
  for (std::size_t i = 0; i < in[0].size(); ++i) out[1][i] = in[0][i];
}

WorkModel CopyOp::work(const Problem& p) const { return {8.0 * p.dim("n"), 0, "read x + write y: 8 n"}; }

}  // namespace nb::test
