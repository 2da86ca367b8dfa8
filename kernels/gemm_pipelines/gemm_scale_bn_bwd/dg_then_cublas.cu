// What sums_then_cublas and both_layouts share: the column pass, dg written once (or in both
// layouts), then cuBLAS's dx = dg W and dW = dg^T x (bf16 dg, operands and outputs in a bf16
// problem, as autocast runs them).
#include "kernels/gemm_pipelines/gemm_scale_bn_bwd/dg_then_cublas.hpp"

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
  float* dg = static_cast<float*>(ws);  // dg and dg^T in the linear storage, each given M x N floats
  float* dg_t = both_layouts ? dg + dg_floats(p) : nullptr;
  const DgCoefficients k = launch_column_gradients(a, dg + (both_layouts ? 2 : 1) * dg_floats(p), s);
  if (both_layouts)
    launch_write_dg_both_layouts(a, k, dg, dg_t, s);
  else
    launch_write_dg(a, k, dg, s);
  if (a.bf16.g) {
    using B = __nv_bfloat16;
    cublas::gemm_dx_bf16(reinterpret_cast<const B*>(dg), a.bf16.weight, a.bf16.dx, a.m, a.n, a.k, s);
    if (both_layouts)
      cublas::gemm_dw_from_transposed_bf16(reinterpret_cast<const B*>(dg_t), a.bf16.x, a.bf16.dweight, a.m, a.n, a.k,
                                           s);
    else
      cublas::gemm_dw_bf16(reinterpret_cast<const B*>(dg), a.bf16.x, a.bf16.dweight, a.m, a.n, a.k, s);
    return;
  }
  cublas::gemm_dx(dg, a.weight, a.dx, a.m, a.n, a.k, a.tf32, s);
  if (both_layouts)
    cublas::gemm_dw_from_transposed(dg_t, a.x, a.dweight, a.m, a.n, a.k, a.tf32, s);
  else
    cublas::gemm_dw(dg, a.x, a.dweight, a.m, a.n, a.k, a.tf32, s);
}

}  // namespace

std::unique_ptr<Variant> dg_then_cublas(bool both_layouts, std::string name, std::string idea) {
  KernelVariantSpec v{std::move(name), "cublas", std::move(idea),
                      [both_layouts](const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t s) {
                        launch(p, t, ws, s, both_layouts);
                      }};
  v.workspace_bytes = [both_layouts](const Problem& p) { return workspace_bytes(p, both_layouts); };
  return make_kernel_variant(std::move(v));
}

}  // namespace nb::gemm_scale_bn_bwd
