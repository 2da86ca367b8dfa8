#include "kernels/gemm_pipelines/linear_shape.hpp"

#include <limits>

namespace nb::linear {

Shape shape_of(const Problem& p) {
  Shape s;
  s.m = p.dim("m");
  s.n = p.dim("n");
  s.k = p.dim("k");
  if (p.params.has("g")) s.groups = p.dim("g");
  s.eps = p.real("eps");
  if (p.params.has("momentum")) s.momentum = p.real("momentum");
  s.dtype = p.dtype;
  return s;
}

std::vector<ParamDecl> param_decls(bool batchnorm, bool groupnorm) {
  std::vector<ParamDecl> d = {
      {"m", true, 0, true, 1, 1 << 30, "batch rows M of x (M, K)"},
      {"n", true, 0, true, 1, 1 << 30, "output features N of nn.Linear(K, N)"},
      {"k", true, 0, true, 1, 1 << 30, "input features K"},
  };
  if (groupnorm) d.push_back({"g", true, 0, true, 1, 1 << 30, "GroupNorm groups G over the N channels"});
  d.push_back({"eps", false, 1e-5, false, 1e-12, 1.0, "added to the variance"});
  if (batchnorm) d.push_back({"momentum", false, 0.1, false, 0.0, 1.0, "running statistics update"});
  return d;
}

std::string check_params(const Params& p, bool batchnorm, bool groupnorm) {
  const double m = p.real("m"), n = p.real("n"), k = p.real("k");
  const double limit = double(std::numeric_limits<int>::max());
  if (m * k > limit || n * k > limit || m * n > limit)
    return "every matrix (M*K, N*K, M*N) must hold fewer than 2^31 elements (kernels index with int)";
  if (batchnorm && m < 2)
    return "BatchNorm in training mode needs more than one value per channel (M >= 2), as PyTorch does";
  if (groupnorm && std::int64_t(n) % std::int64_t(p.real("g")) != 0) return "G must divide N";
  return "";
}

NamedProblem named(Params params, std::vector<std::string> suites, std::string note) {
  return {std::move(params), std::move(suites), std::move(note), {DType::f32, DType::tf32}};
}

}  // namespace nb::linear
