#pragma once
// What the two row-layout normalization backwards share (LLM layout: x of shape (M, N), each row
// normalized over its N contiguous values):
//   rmsnorm_rows_bwd:   xhat = x * rstd,          dx = rstd (g - xhat mean_j(g xhat)),           dw
//   layernorm_rows_bwd: xhat = (x - mean) * rstd, dx = rstd (g - mean_j(g) - xhat mean_j(g xhat)), dw, db
// with g = dy * w, dw = sum_rows dy * xhat, db = sum_rows dy, from the statistics the forward
// saved. The op spec and every variant are written once for both, the op's Layout (which norm,
// which tensor index holds what) chosen at construction, as gemm_pipelines/gemm_bn does for its tails.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "harness/op_spec.hpp"

namespace nb::rows_bwd {

enum class Norm { rms, layer };

// The op's tensors by index; mean and db are -1 for RMSNorm, which has neither.
struct Layout {
  Norm norm;
  int x, w, dy, mean, rstd, dx, dw, db;

  bool layer() const { return norm == Norm::layer; }
  // Declared tensors: x, w, dy, (mean,) rstd, dx, dw(, db).
  int tensor_count() const { return layer() ? 8 : 6; }
  // Column sums each column of the weight gradient needs: dw, and db for LayerNorm.
  int column_sums() const { return layer() ? 2 : 1; }
};

struct Shape {
  std::int64_t m = 0, n = 0;  // rows, row length (the normalized dim)
  double eps = 1e-5;

  static Shape of(const Problem& p) { return {p.dim("m"), p.dim("n"), p.real("eps")}; }
  std::int64_t elements() const { return m * n; }
};

// The op spec: `name` is "rmsnorm_rows_bwd" or "layernorm_rows_bwd", `variants` its table.
std::unique_ptr<OpSpec> make_op(const Layout& layout, std::string name,
                                std::vector<std::unique_ptr<Variant>> variants);

// The variant table (variants.cpp): one numbered file per variant, every one for both layouts.
std::vector<std::unique_ptr<Variant>> make_variants(const Layout& layout);

}  // namespace nb::rows_bwd
