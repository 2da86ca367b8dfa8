// Naive: one thread per row makes three serial passes, element by element: the max, the sum of
// exp(x - max) (in double, so long rows keep their digits), the write. x is read three times.
#include "harness/cuda_check.hpp"
#include "kernels/softmax/common.cuh"
#include "harness/variant.hpp"

namespace nb::softmax {
namespace {

template <class T>
__global__ void naive_kernel(Args<T> a) {
  const long long row = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (row >= a.m) return;
  const T* x = a.x + row * a.n;
  T* y = a.y + row * a.n;
  float mx = -FLT_MAX;
  for (long long i = 0; i < a.n; ++i) mx = fmaxf(mx, dev::to_float(x[i]));
  double sum = 0;
  for (long long i = 0; i < a.n; ++i) sum += expf(dev::to_float(x[i]) - mx);
  const float inv = float(1.0 / sum);
  for (long long i = 0; i < a.n; ++i) y[i] = dev::from_float<T>(expf(dev::to_float(x[i]) - mx) * inv);
}

void launch(const Problem& p, const DeviceTensors& t, void*, cudaStream_t stream) {
  dispatch_storage(p.dtype, [&](auto tag) {
    using T = decltype(tag);
    const Args<T> a = make_args<T>(p, t);
    naive_kernel<T><<<unsigned(dev::ceil_div(a.m, 64)), 64, 0, stream>>>(a);
  });
  NB_CHECK_LAUNCH();
}

}  // namespace

std::unique_ptr<Variant> make_naive_variant() {
  return make_kernel_variant({
      "naive", "naive", "thread per row: max, sum (double), write in three serial passes", launch, nullptr,
      nullptr, {}});
}

}  // namespace nb::softmax
