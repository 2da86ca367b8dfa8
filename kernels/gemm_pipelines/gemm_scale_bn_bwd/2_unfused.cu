// unfused: what autograd runs for the training step's backward, one kernel per step through
// fresh tensors: BatchNorm's backward reduce and elementwise kernels (dh), the scale's backward
// (dg = dh * s, ds = sum(dh * g)), then nn.Linear's: two cuBLAS GEMMs and db = sum(dg). bf16
// (autocast): dg rounded to bf16, the GEMMs on bf16 operands writing bf16, db summed from it.
#include "baselines/cublas/cublas_gemm.hpp"
#include "kernels/gemm_pipelines/linear_shape.hpp"
#include "kernels/gemm_pipelines/gemm_scale_bn_bwd/backward_passes.hpp"

namespace nb::gemm_scale_bn_bwd {
namespace {

std::size_t matrix_bytes(const linear::Shape& s) { return std::size_t(s.m) * std::size_t(s.n) * sizeof(float); }

void launch(const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t s) {
  const Args a = args_of(p, t);
  float* dh = static_cast<float*>(ws);
  void* dg = dh + std::size_t(a.m) * a.n;  // in the linear storage (bf16 in a bf16 problem)
  void* partials = dh + 2 * std::size_t(a.m) * a.n;
  launch_bn_backward_reduce(a, partials, s);
  launch_bn_backward_elementwise(a, dh, s);
  launch_dg_of_dh(a, dh, dg, s);
  launch_times_g(a, dh, s);  // dh * g, in place: dh is not read again
  launch_dscale_sum(a, dh, partials, s);
  if (a.bf16.g) {
    const auto* dg16 = static_cast<const __nv_bfloat16*>(dg);
    cublas::gemm_dx_bf16(dg16, a.bf16.weight, a.bf16.dx, a.m, a.n, a.k, s);
    cublas::gemm_dw_bf16(dg16, a.bf16.x, a.bf16.dweight, a.m, a.n, a.k, s);
  } else {
    const auto* dg32 = static_cast<const float*>(dg);
    cublas::gemm_dx(dg32, a.weight, a.dx, a.m, a.n, a.k, a.tf32, s);
    cublas::gemm_dw(dg32, a.x, a.dweight, a.m, a.n, a.k, a.tf32, s);
  }
  launch_dbias_sum(a, dg, partials, s);
}

}  // namespace

std::unique_ptr<Variant> make_unfused_variant() {
  KernelVariantSpec v{"unfused", "cublas",
                      "autograd's sequence: BatchNorm backward reduce + elementwise (dh), dg = dh * s, "
                      "ds = sum(dh * g), cuBLAS dx = dg W and dW = dg^T x, db = sum(dg): 8 kernels",
                      launch};
  v.workspace_bytes = [](const Problem& p) {
    const linear::Shape s = linear::shape_of(p);
    return 2 * matrix_bytes(s) + column_sum_workspace_bytes(int(s.m), int(s.n));
  };
  return make_kernel_variant(std::move(v));
}

}  // namespace nb::gemm_scale_bn_bwd
