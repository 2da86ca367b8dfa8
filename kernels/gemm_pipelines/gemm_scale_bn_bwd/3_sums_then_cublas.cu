// sums_then_cublas: the fewest bytes a library GEMM allows. One pass reads dy and g for every
// column quantity (dgamma, dbeta, ds, db and dg's affine coefficients), one pass writes dg, then
// cuBLAS's two GEMMs read it: 2 + 3 matrix passes of M x N instead of autograd's 11.
// both_layouts: the same, with dg also written as dg^T from the same read, so that both of
// cuBLAS's GEMMs take untransposed operands. dW = dg^T x from dg (M, N) needs cuBLAS's "NT"
// kernels, which in tf32 take 1.6x the time of the "NN" ones on the H100
// (docs/notes/gemm-backward.md); one more M x N write buys the NN layout.
#include "baselines/cublas/cublas_gemm.hpp"
#include "kernels/gemm_pipelines/linear_shape.hpp"
#include "kernels/gemm_pipelines/gemm_scale_bn_bwd/backward_passes.hpp"

namespace nb::gemm_scale_bn_bwd {
namespace {

std::size_t dg_floats(const Problem& p) {
  const linear::Shape s = linear::shape_of(p);
  return std::size_t(s.m) * std::size_t(s.n);
}

// dg (and dg^T for both_layouts), then the column pass's partials and coefficients.
std::size_t workspace_bytes(const Problem& p, bool both_layouts) {
  const linear::Shape s = linear::shape_of(p);
  return (both_layouts ? 2 : 1) * dg_floats(p) * sizeof(float) + column_gradients_workspace_bytes(int(s.m), int(s.n));
}

void launch(const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t s, bool both_layouts) {
  const Args a = args_of(p, t);
  float* dg = static_cast<float*>(ws);
  float* dg_t = both_layouts ? dg + dg_floats(p) : nullptr;
  const DgCoefficients k = launch_column_gradients(a, dg + (both_layouts ? 2 : 1) * dg_floats(p), s);
  if (both_layouts)
    launch_write_dg_both_layouts(a, k, dg, dg_t, s);
  else
    launch_write_dg(a, k, dg, s);
  cublas::gemm_dx(dg, a.weight, a.dx, a.m, a.n, a.k, a.tf32, s);
  if (both_layouts)
    cublas::gemm_dw_from_transposed(dg_t, a.x, a.dweight, a.m, a.n, a.k, a.tf32, s);
  else
    cublas::gemm_dw(dg, a.x, a.dweight, a.m, a.n, a.k, a.tf32, s);
}

std::unique_ptr<Variant> make(bool both_layouts, std::string name, std::string idea) {
  KernelVariantSpec v{std::move(name), "cublas", std::move(idea),
                      [both_layouts](const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t s) {
                        launch(p, t, ws, s, both_layouts);
                      }};
  v.workspace_bytes = [both_layouts](const Problem& p) { return workspace_bytes(p, both_layouts); };
  return make_kernel_variant(std::move(v));
}

}  // namespace

std::unique_ptr<Variant> make_sums_then_cublas() {
  return make(false, "sums_then_cublas",
              "one pass over dy and g for all column gradients and dg's per-column affine, one pass writing dg, "
              "then cuBLAS's dx = dg W and dW = dg^T x");
}

std::unique_ptr<Variant> make_both_layouts() {
  return make(true, "both_layouts",
              "one pass for the column gradients and dg's affine, one pass writing dg and dg^T, then cuBLAS with "
              "untransposed operands: dx = dg W, dW = (dg^T) x");
}

}  // namespace nb::gemm_scale_bn_bwd
