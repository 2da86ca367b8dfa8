#pragma once
// The BatchNorm ops' shared contract: their Shape (baselines/shapes/batchnorm_shape.hpp) built
// from a problem, their parameters and checks, and their named problems.
#include <cstdint>
#include <vector>

#include "baselines/shapes/batchnorm_shape.hpp"
#include "harness/op_spec.hpp"

namespace nb::bn {

inline Shape shape_of(const Problem& p) {
  Shape s;
  s.n = p.dim("n");
  s.c = p.dim("c");
  s.hw = p.dim("h") * p.dim("w");
  s.eps = p.real("eps");
  s.momentum = p.real("momentum");
  return s;
}

// x's dimensions as PyTorch holds them: (N, C) for BatchNorm1d (H = W = 1), else (N, C, H, W).
inline std::vector<std::int64_t> x_dims(const Problem& p) {
  if (p.dim("h") * p.dim("w") == 1) return {p.dim("n"), p.dim("c")};
  return {p.dim("n"), p.dim("c"), p.dim("h"), p.dim("w")};
}

// The parameters both ops share (n, c, h, w, eps, momentum) and their relational checks.
std::vector<ParamDecl> param_decls();
std::string check_params(const Params& p);
// The KB, sweep and quick shapes (both ops use the same ones).
enum class Pass { forward, backward };
std::vector<NamedProblem> named_problems(Pass pass);

// The naive variants give each channel to one thread; past 4M values per channel one launch
// takes seconds (5 s at 64x64x512x512), so they decline such problems and say so.
Support one_thread_per_channel_limit(const Problem& p);

// max over channels of |mean_c| * invstd_c: how far an fp32 rounding of the mean is amplified in
// y relative to y's scale (docs/notes/batchnorm.md); at least 1, capped at kMaxCondition.
inline constexpr double kMaxCondition = 1e5;
double condition_from_stats(const std::vector<double>& mean, const std::vector<double>& invstd);

}  // namespace nb::bn
