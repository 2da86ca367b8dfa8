#pragma once
// The GEMM pipeline ops' shared contract: their Shape (baselines/shapes/linear_shape.hpp) built
// from a problem, their parameters and checks, and how a named problem comes in both precisions.
#include <string>
#include <vector>

#include "baselines/shapes/linear_shape.hpp"
#include "harness/op_spec.hpp"

namespace nb::linear {

Shape shape_of(const Problem& p);

// m, n, k, eps (and momentum for BatchNorm, g for GroupNorm).
std::vector<ParamDecl> param_decls(bool batchnorm, bool groupnorm);
// Relational checks: every matrix below 2^31 elements (int indexing), M >= 2 for BatchNorm's
// batch statistics (PyTorch refuses one value per channel in training), G divides N.
std::string check_params(const Params& p, bool batchnorm, bool groupnorm);

// A named problem in both precisions.
NamedProblem named(Params params, std::vector<std::string> suites, std::string note);

}  // namespace nb::linear
