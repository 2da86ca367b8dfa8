// Vec: one block per row with float4 loads (when the row is 16-byte aligned, else scalar), four
// independent loads in flight per thread, a warp-shuffle + shared-slot block min.
#include "harness/cuda_check.hpp"
#include "kernels/min_dim1/common.cuh"
#include "harness/variant.hpp"

namespace nb::min_dim1 {
namespace {

constexpr int kThreads = 256;

__device__ float min4(float m, float4 q) {
  const MinNanOp op;
  return op(op(m, q.x), op(op(q.y, q.z), q.w));
}

__global__ void __launch_bounds__(kThreads) vec_kernel(Args a) {
  __shared__ float scratch[32];
  const float* x = a.x + blockIdx.x * a.c;
  float m = MinNanOp::identity();
  long long done = 0;
  if ((reinterpret_cast<unsigned long long>(x) & 15) == 0) {
    const float4* x4 = reinterpret_cast<const float4*>(x);
#pragma unroll 4
    for (long long i = threadIdx.x; i < a.c / 4; i += kThreads) m = min4(m, x4[i]);
    done = a.c / 4 * 4;
  }
  for (long long i = done + threadIdx.x; i < a.c; i += kThreads) m = MinNanOp{}(m, x[i]);
  m = dev::block_reduce(m, MinNanOp{}, scratch);
  if (threadIdx.x == 0) a.y[blockIdx.x] = m;
}

void launch(const Problem& p, const DeviceTensors& t, void*, cudaStream_t stream) {
  const Args a = make_args(p, t);
  vec_kernel<<<unsigned(a.b), kThreads, 0, stream>>>(a);
  NB_CHECK_LAUNCH();
}

}  // namespace

std::unique_ptr<Variant> make_vec_variant() {
  return make_kernel_variant({
      "vec", "vectorized", "block per row: float4 loads, 4 in flight per thread, shuffle + shared-slot min",
      launch, nullptr, nullptr, {}});
}

}  // namespace nb::min_dim1
