// unfused: what PyTorch eager runs: addmm (bias copy + cuBLAS GEMM), GroupNorm into a fresh
// tensor, torch.min over dim 1, then the broadcast add that builds the (1, N, M, 1) output.
#include "baselines/cublas/cublas_gemm.hpp"
#include "kernels/gemm_pipelines/gemm_gn_min_bias/spec.hpp"
#include "kernels/gemm_pipelines/linear_shape.hpp"
#include "kernels/gemm_pipelines/post_gemm.hpp"

namespace nb::gemm_gn_min_bias {
namespace {

// g (M*N), z (M*N), the row minimum (M), a bf16 problem's bias widened (N).
std::size_t workspace(const Problem& p) {
  const linear::Shape s = linear::shape_of(p);
  return (2 * std::size_t(s.m) * std::size_t(s.n) + std::size_t(s.m) + std::size_t(s.n)) * sizeof(float);
}

void launch(const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t s) {
  const Args a = args_of(p, t);
  float* g = static_cast<float*>(ws);
  float* z = g + std::size_t(a.m) * std::size_t(a.n);
  float* row_min = z + std::size_t(a.m) * std::size_t(a.n);
  linear::cublas_linear(p, a.op, a.bias, a.bf16, g, row_min + a.m, s);
  linear::launch_groupnorm_rows(g, z, a.gamma, a.beta, a.m, a.n, a.groups, a.eps, s);
  linear::launch_min_rows(z, row_min, a.m, a.n, s);
  linear::launch_min_broadcast(row_min, 1, a.add_bias, a.out, a.m, a.n, s);
}

}  // namespace

std::unique_ptr<Variant> make_unfused_variant() {
  return make_kernel_variant({
      "unfused", "cublas",
      "PyTorch eager's sequence: bias copy + cuBLAS GEMM (addmm), GroupNorm, min over dim 1, broadcast add",
      launch, nullptr, workspace});
}

}  // namespace nb::gemm_gn_min_bias
