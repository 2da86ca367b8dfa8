// both_layouts: sums_then_cublas with dg written twice from one read, as dg and as dg^T, so that
// both of cuBLAS's GEMMs take untransposed operands. dW = dg^T x from dg (M, N) needs cuBLAS's
// "NT" kernels, which in tf32 take 1.6x the time of the "NN" ones on the H100
// (docs/notes/gemm-backward.md); one more M x N write buys the NN layout.
#include "baselines/cublas/cublas_gemm.hpp"
#include "kernels/gemm_pipeline_common/linear_shape.hpp"
#include "kernels/gemm_scale_bn_bwd/backward_passes.hpp"

namespace nb::bn_backward {
namespace {

std::size_t dg_floats(const linear::Shape& s) { return std::size_t(s.m) * std::size_t(s.n); }

void launch(const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t s) {
  const Args a = args_of(p, t);
  const std::size_t matrix = dg_floats(linear::shape_of(p));
  float* dg = static_cast<float*>(ws);
  float* dg_t = dg + matrix;
  const DgCoefficients k = launch_column_gradients(a, dg_t + matrix, s);
  launch_write_dg_both_layouts(a, k, dg, dg_t, s);
  cublas::gemm_dx(dg, a.weight, a.dx, a.m, a.n, a.k, a.tf32, s);
  cublas::gemm_dw_from_transposed(dg_t, a.x, a.dweight, a.m, a.n, a.k, a.tf32, s);
}

}  // namespace

std::unique_ptr<Variant> make_both_layouts() {
  KernelVariantSpec v{"both_layouts", "cublas",
                      "one pass for the column gradients and dg's affine, one pass writing dg and dg^T, then cuBLAS "
                      "with untransposed operands: dx = dg W, dW = (dg^T) x",
                      launch};
  v.workspace_bytes = [](const Problem& p) {
    const linear::Shape s = linear::shape_of(p);
    return 2 * dg_floats(s) * sizeof(float) + column_gradients_workspace_bytes(int(s.m), int(s.n));
  };
  return make_kernel_variant(std::move(v));
}

}  // namespace nb::bn_backward
