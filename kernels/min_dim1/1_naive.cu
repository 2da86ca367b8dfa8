// Naive: one thread per row walks the row serially (uncoalesced across the warp).
#include "harness/cuda_check.hpp"
#include "kernels/min_dim1/common.cuh"
#include "harness/variant.hpp"

namespace nb::min_dim1 {
namespace {

__global__ void naive_kernel(Args a) {
  const long long row = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (row >= a.b) return;
  float m = MinNanOp::identity();
  for (long long i = 0; i < a.c; ++i) m = MinNanOp{}(m, a.x[row * a.c + i]);
  a.y[row] = m;
}

void launch(const Problem& p, const DeviceTensors& t, void*, cudaStream_t stream) {
  const Args a = make_args(p, t);
  naive_kernel<<<unsigned(dev::ceil_div(a.b, 128)), 128, 0, stream>>>(a);
  NB_CHECK_LAUNCH();
}

}  // namespace

std::unique_ptr<Variant> make_naive_variant() {
  return make_kernel_variant({
      "naive", "naive", "thread per row, serial NaN-propagating min", launch, nullptr, nullptr, {}});
}

}  // namespace nb::min_dim1
