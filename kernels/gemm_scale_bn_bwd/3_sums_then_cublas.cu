// sums_then_cublas: the fewest bytes a library GEMM allows. One pass reads dy and g for every
// column quantity (dgamma, dbeta, ds, db and dg's affine coefficients), one pass writes dg, then
// cuBLAS's two GEMMs read it: 2 + 3 matrix passes of M x N instead of autograd's 11.
#include "baselines/cublas/cublas_gemm.hpp"
#include "kernels/gemm_pipeline_common/linear_shape.hpp"
#include "kernels/gemm_scale_bn_bwd/backward_passes.hpp"

namespace nb::bn_backward {
namespace {

std::size_t dg_floats(const linear::Shape& s) { return std::size_t(s.m) * std::size_t(s.n); }

void launch(const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t s) {
  const Args a = args_of(p, t);
  float* dg = static_cast<float*>(ws);
  const DgCoefficients k = launch_column_gradients(a, dg + dg_floats(linear::shape_of(p)), s);
  launch_write_dg(a, k, dg, s);
  cublas::gemm_dx(dg, a.weight, a.dx, a.m, a.n, a.k, a.tf32, s);
  cublas::gemm_dw(dg, a.x, a.dweight, a.m, a.n, a.k, a.tf32, s);
}

}  // namespace

std::unique_ptr<Variant> make_sums_then_cublas() {
  KernelVariantSpec v{"sums_then_cublas", "cublas",
                      "one pass over dy and g for all column gradients and dg's per-column affine, one pass "
                      "writing dg, then cuBLAS's dx = dg W and dW = dg^T x",
                      launch};
  v.workspace_bytes = [](const Problem& p) {
    const linear::Shape s = linear::shape_of(p);
    return dg_floats(s) * sizeof(float) + column_gradients_workspace_bytes(int(s.m), int(s.n));
  };
  return make_kernel_variant(std::move(v));
}

}  // namespace nb::bn_backward
