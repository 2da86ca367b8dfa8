// naive: one thread per output element for x W^T + b (fp32 FMA in both precisions), then one
// thread per row for GroupNorm, the row minimum and its broadcast over the N channels.
#include "kernels/gemm_common/naive_gemm.cuh"
#include "kernels/gemm_gn_min_bias/spec.hpp"
#include "kernels/gemm_pipeline_common/linear_shape.hpp"
#include "kernels/gemm_pipeline_common/post_gemm.hpp"

namespace nb::gn_pipeline {
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

KernelVariantSpec naive_variant() {
  return {"naive", "naive", "one thread per output for x W^T + b (fp32 FMA), one per row for GroupNorm + min + bias",
          launch, nullptr, workspace};
}

}  // namespace nb::gn_pipeline
