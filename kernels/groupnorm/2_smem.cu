// Smem: one block per (n, group); each thread sums x and x^2 in fp32 over a strided share, a
// shared-memory tree combines the block, and the block then normalizes its group (x read twice).
#include "harness/cuda_check.hpp"
#include "kernels/groupnorm/common.cuh"
#include "harness/variant.hpp"

namespace nb::groupnorm {
namespace {

constexpr int kThreads = 512;

// Classic tree over blockDim.x (a power of two) pairs in shared memory; every thread gets the sum.
__device__ float2 tree_sum(float2 v, float2* buf) {
  buf[threadIdx.x] = v;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) {
      const float2 o = buf[threadIdx.x + s];
      buf[threadIdx.x].x += o.x, buf[threadIdx.x].y += o.y;
    }
    __syncthreads();
  }
  return buf[0];
}

__global__ void __launch_bounds__(kThreads) smem_kernel(Args a) {
  __shared__ float2 buf[kThreads];
  const long long grp = blockIdx.x;
  const float* src = a.x + grp * a.group_elems;
  SumSquares s;
  accumulate(s, src, a.group_elems, threadIdx.x, kThreads);
  const float2 total = tree_sum(make_float2(s.sum, s.sq), buf);
  const float mean = total.x / float(a.group_elems);
  float var = total.y / float(a.group_elems) - mean * mean;
  var = var < 0.f ? 0.f : var;
  normalize_span(a, grp, 0, a.group_elems, src, mean, invstd_of(mean, var, a.eps), threadIdx.x, kThreads);
}

void launch(const Problem& p, const DeviceTensors& t, void*, cudaStream_t stream) {
  const Args a = make_args(p, t);
  smem_kernel<<<unsigned(a.groups), kThreads, 0, stream>>>(a);
  NB_CHECK_LAUNCH();
}

}  // namespace

std::unique_ptr<Variant> make_smem_variant() {
  return make_kernel_variant({
      "smem", "smem", "block per (n,group): fp32 sum/sum-of-squares, shared-memory tree, normalize (x read twice)",
      launch, nullptr, nullptr, {}});
}

}  // namespace nb::groupnorm
