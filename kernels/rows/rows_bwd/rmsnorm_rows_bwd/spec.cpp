// The op spec of rmsnorm_rows_bwd: the shared row-backward spec (../op.cpp) with the
// RMSNorm layout.
#include "kernels/ops.hpp"
#include "kernels/rows/rows_bwd/rmsnorm_rows_bwd/spec.hpp"

namespace nb {

std::unique_ptr<OpSpec> make_rmsnorm_rows_bwd_op() {
  return rows_bwd::make_op(rmsnorm_rows_bwd::kLayout, "rmsnorm_rows_bwd", rows_bwd::make_variants(rmsnorm_rows_bwd::kLayout));
}

}  // namespace nb
