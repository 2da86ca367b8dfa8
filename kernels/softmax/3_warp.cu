// Warp: one warp per row holds the row in registers (K values per lane, N <= 32*K <= 4096), x read
// once element by element; shuffles reduce the max and the sum of exp(x - max). Above 4096: no.
#include "harness/cuda_check.hpp"
#include "kernels/softmax/common.cuh"
#include "harness/variant.hpp"

namespace nb::softmax {
namespace {

constexpr long long kMaxN = 4096;
constexpr int kWarpsPerBlock = 4;

template <class T, int K>
__global__ void __launch_bounds__(32 * kWarpsPerBlock) warp_kernel(Args<T> a) {
  const int lane = threadIdx.x & 31;
  const long long row = blockIdx.x * (long long)kWarpsPerBlock + (threadIdx.x >> 5);
  if (row >= a.m) return;  // the whole warp leaves together
  const T* x = a.x + row * a.n;
  float v[K], mx = -FLT_MAX, sum = 0.f;
#pragma unroll
  for (int k = 0; k < K; ++k) {
    v[k] = lane + 32 * k < a.n ? dev::to_float(x[lane + 32 * k]) : -INFINITY;  // exp(-Inf - max) = 0
    mx = fmaxf(mx, v[k]);
  }
  mx = dev::warp_reduce(mx, dev::MaxOp{});
#pragma unroll
  for (int k = 0; k < K; ++k) sum += lane + 32 * k < a.n ? expf(v[k] - mx) : 0.f;
  const float inv = 1.0f / dev::warp_sum(sum);
  T* y = a.y + row * a.n;
#pragma unroll
  for (int k = 0; k < K; ++k)
    if (lane + 32 * k < a.n) y[lane + 32 * k] = dev::from_float<T>(expf(v[k] - mx) * inv);
}

template <class T>
void launch_rows(const Args<T>& a, cudaStream_t stream) {
  const unsigned blocks = unsigned(dev::ceil_div(a.m, kWarpsPerBlock));
  const int threads = 32 * kWarpsPerBlock;
  const long long k = dev::ceil_div(a.n, 32);
  if (k <= 1) warp_kernel<T, 1><<<blocks, threads, 0, stream>>>(a);
  else if (k <= 2) warp_kernel<T, 2><<<blocks, threads, 0, stream>>>(a);
  else if (k <= 4) warp_kernel<T, 4><<<blocks, threads, 0, stream>>>(a);
  else if (k <= 8) warp_kernel<T, 8><<<blocks, threads, 0, stream>>>(a);
  else if (k <= 16) warp_kernel<T, 16><<<blocks, threads, 0, stream>>>(a);
  else if (k <= 32) warp_kernel<T, 32><<<blocks, threads, 0, stream>>>(a);
  else if (k <= 64) warp_kernel<T, 64><<<blocks, threads, 0, stream>>>(a);
  else warp_kernel<T, 128><<<blocks, threads, 0, stream>>>(a);
}

void launch(const Problem& p, const DeviceTensors& t, void*, cudaStream_t stream) {
  dispatch_storage(p.dtype, [&](auto tag) {
    using T = decltype(tag);
    launch_rows(make_args<T>(p, t), stream);
  });
  NB_CHECK_LAUNCH();
}

Support supports(const Problem& p) {
  if (shape_of(p).n > kMaxN) return Support::no("a row must fit one warp's registers: n <= 4096");
  return Support::yes();
}

}  // namespace

std::unique_ptr<Variant> make_warp_variant() {
  return make_kernel_variant({
      "warp", "warp", "warp per row, row in registers (n <= 4096): shuffle max, shuffle sum, write (x read once)",
      launch, supports, nullptr, {}});
}

}  // namespace nb::softmax
