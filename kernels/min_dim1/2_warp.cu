// Warp: one warp per row; lanes stride the row (coalesced) and a butterfly shuffle takes the min.
#include "harness/cuda_check.hpp"
#include "kernels/min_dim1/common.cuh"
#include "harness/variant.hpp"

namespace nb::min_dim1 {
namespace {

__global__ void warp_kernel(Args a) {
  const long long row = (blockIdx.x * (long long)blockDim.x + threadIdx.x) >> 5;
  if (row >= a.b) return;  // whole warps leave together
  const int lane = threadIdx.x & 31;
  float m = MinNanOp::identity();
  for (long long i = lane; i < a.c; i += 32) m = MinNanOp{}(m, a.x[row * a.c + i]);
  m = dev::warp_reduce(m, MinNanOp{});
  if (lane == 0) a.y[row] = m;
}

void launch(const Problem& p, const DeviceTensors& t, void*, cudaStream_t stream) {
  const Args a = make_args(p, t);
  warp_kernel<<<unsigned(dev::ceil_div(a.b, 8)), 256, 0, stream>>>(a);
  NB_CHECK_LAUNCH();
}

}  // namespace

std::unique_ptr<Variant> make_warp_variant() {
  return make_kernel_variant({
      "warp", "warp", "warp per row: coalesced strided loads, shuffle min", launch, nullptr, nullptr, {}});
}

}  // namespace nb::min_dim1
