#pragma once
// The problem every GEMM pipeline op shares: nn.Linear(K, N) on a batch of M rows,
// g = x W^T + b with x (M, K), W (N, K), b (N), followed by a normalization with eps (and the
// BatchNorm momentum). GroupNorm ops add G groups over the N channels.
#include <cstdint>
#include <string>
#include <vector>

#include "harness/op_spec.hpp"

namespace nb::linear {

struct Shape {
  std::int64_t m = 0, n = 0, k = 0;
  std::int64_t groups = 1;  // GroupNorm only
  double eps = 1e-5, momentum = 0.1;
  DType dtype = DType::f32;

  double unbias() const { return double(m) / double(m - 1); }  // BatchNorm's running var: M / (M - 1)
  std::int64_t group_size() const { return n / groups; }
  double gemm_flops() const { return 2.0 * double(m) * double(n) * double(k); }
  bool tf32() const { return dtype == DType::tf32; }
};

Shape shape_of(const Problem& p);

// m, n, k, eps (and momentum for BatchNorm, g for GroupNorm).
std::vector<ParamDecl> param_decls(bool batchnorm, bool groupnorm);
// Relational checks: every matrix below 2^31 elements (int indexing), M >= 2 for BatchNorm's
// batch statistics (PyTorch refuses one value per channel in training), G divides N.
std::string check_params(const Params& p, bool batchnorm, bool groupnorm);

// A named problem in both precisions.
NamedProblem named(Params params, std::vector<std::string> suites, std::string note);

}  // namespace nb::linear
