// sums_then_cublas: the fewest bytes a library GEMM allows. One pass reads dy and g for every
// column quantity (dgamma, dbeta, ds, db and dg's affine coefficients), one pass writes dg, then
// cuBLAS's two GEMMs read it: 2 + 3 matrix passes of M x N instead of autograd's 11.
#include "kernels/gemm_pipelines/gemm_scale_bn_bwd/dg_then_cublas.hpp"

namespace nb::gemm_scale_bn_bwd {

std::unique_ptr<Variant> make_sums_then_cublas_variant() {
  return dg_then_cublas(false, "sums_then_cublas",
                        "one pass over dy and g for all column gradients and dg's per-column affine, one pass "
                        "writing dg, then cuBLAS's dx = dg W and dW = dg^T x");
}

}  // namespace nb::gemm_scale_bn_bwd
