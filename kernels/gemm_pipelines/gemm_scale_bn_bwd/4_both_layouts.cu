// both_layouts: sums_then_cublas with dg also written as dg^T from the same read, so that both of
// cuBLAS's GEMMs take untransposed operands. dW = dg^T x from dg (M, N) needs cuBLAS's "NT"
// kernels, which in tf32 take 1.6x the time of the "NN" ones on the H100
// (docs/notes/gemm-backward.md); one more M x N write buys the NN layout.
#include "kernels/gemm_pipelines/gemm_scale_bn_bwd/dg_then_cublas.hpp"

namespace nb::gemm_scale_bn_bwd {

std::unique_ptr<Variant> make_both_layouts_variant() {
  return dg_then_cublas(true, "both_layouts",
                        "one pass for the column gradients and dg's affine, one pass writing dg and dg^T, then "
                        "cuBLAS with untransposed operands: dx = dg W, dW = (dg^T) x");
}

}  // namespace nb::gemm_scale_bn_bwd
