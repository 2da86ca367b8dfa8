// naive: one thread per output element for x W^T + b (fp32 FMA in both precisions), then one
// thread per row for GroupNorm, the row minimum and its broadcast over the N channels.
#include "kernels/gemm/naive_gemm.cuh"
#include "kernels/gemm_pipelines/gemm_gn_min_bias/spec.hpp"
#include "kernels/gemm_pipelines/linear_shape.hpp"
#include "kernels/gemm_pipelines/post_gemm.hpp"

namespace nb::gemm_gn_min_bias {
namespace {

std::size_t workspace(const Problem& p) {
  const linear::Shape s = linear::shape_of(p);
  return std::size_t(s.m) * std::size_t(s.n) * sizeof(float);
}

void launch(const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t s) {
  const Args a = args_of(p, t);
  float* g = static_cast<float*>(ws);
  gemm::launch_naive_gemm(a.op, a.bias, g, s);
  linear::launch_naive_groupnorm_min(g, a.gamma, a.beta, a.add_bias, a.out, a.m, a.n, a.groups, a.eps, s);
}

}  // namespace

std::unique_ptr<Variant> make_naive_variant() {
  return make_kernel_variant({
      "naive", "naive", "one thread per output for x W^T + b (fp32 FMA), one per row for GroupNorm + min + bias",
      launch, nullptr, workspace});
}

}  // namespace nb::gemm_gn_min_bias
