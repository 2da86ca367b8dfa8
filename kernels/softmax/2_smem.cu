// Smem: one block per row; each thread strides over the row, a shared-memory tree reduces the
// max and then the sum of exp(x - max), and a third pass writes (in packs). x is read three times.
#include "harness/cuda_check.hpp"
#include "kernels/softmax/common.cuh"
#include "harness/variant.hpp"

namespace nb::softmax {
namespace {

constexpr int kThreads = 256;

// Classic shared-memory tree over kThreads slots; every thread gets the result.
template <class Op>
__device__ float tree_reduce(float v, float* buf, Op op) {
  buf[threadIdx.x] = v;
  __syncthreads();
  for (int s = kThreads / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) buf[threadIdx.x] = op(buf[threadIdx.x], buf[threadIdx.x + s]);
    __syncthreads();
  }
  const float r = buf[0];
  __syncthreads();
  return r;
}

template <class T, int VEC>
__global__ void __launch_bounds__(kThreads) smem_kernel(Args<T> a) {
  __shared__ float buf[kThreads];
  const T* x = a.x + blockIdx.x * a.n;
  float mx = -FLT_MAX, sum = 0.f;
  for (long long i = threadIdx.x; i < a.n; i += kThreads) mx = fmaxf(mx, dev::to_float(x[i]));
  mx = tree_reduce(mx, buf, dev::MaxOp{});
  for (long long i = threadIdx.x; i < a.n; i += kThreads) sum += expf(dev::to_float(x[i]) - mx);
  sum = tree_reduce(sum, buf, dev::SumOp{});
  write_softmax<T, VEC>(x, a.y + blockIdx.x * a.n, a.n, mx, 1.0f / sum, threadIdx.x, kThreads);
}

void launch(const Problem& p, const DeviceTensors& t, void*, cudaStream_t stream) {
  dispatch_storage(p.dtype, [&](auto tag) {
    using T = decltype(tag);
    const Args<T> a = make_args<T>(p, t);
    dispatch_pack<T>(pack_width(a), [&](auto vec) {
      smem_kernel<T, decltype(vec)::value><<<unsigned(a.m), kThreads, 0, stream>>>(a);
    });
  });
  NB_CHECK_LAUNCH();
}

}  // namespace

std::unique_ptr<Variant> make_smem_variant() {
  return make_kernel_variant({
      "smem", "smem", "block per row: shared-memory tree max, tree sum of exp, write (x read three times)",
      launch, nullptr, nullptr, {}});
}

}  // namespace nb::softmax
