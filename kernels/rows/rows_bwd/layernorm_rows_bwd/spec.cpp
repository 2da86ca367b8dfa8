// The op spec of layernorm_rows_bwd: the shared row-backward spec (../op.cpp) with the
// LayerNorm layout.
#include "kernels/ops.hpp"
#include "kernels/rows/rows_bwd/layernorm_rows_bwd/spec.hpp"

namespace nb {

std::unique_ptr<OpSpec> make_layernorm_rows_bwd_op() {
  return rows_bwd::make_op(layernorm_rows_bwd::kLayout, "layernorm_rows_bwd", rows_bwd::make_variants(layernorm_rows_bwd::kLayout));
}

}  // namespace nb
