// Online: one block per row; each thread keeps a running (max, sum) in one pass (Milakov &
// Gimelshein 2018), the block merges the pairs, and a second pass writes: 2 reads + 1 write.
#include "harness/cuda_check.hpp"
#include "kernels/softmax/common.cuh"
#include "harness/variant.hpp"

namespace nb::softmax {
namespace {

template <class T, int VEC>
__global__ void __launch_bounds__(1024) online_kernel(Args<T> a) {
  __shared__ MaxSum scratch[32];
  const T* x = a.x + blockIdx.x * a.n;
  const MaxSum total = block_merge(online_accumulate<T, VEC>(x, a.n, threadIdx.x, blockDim.x), scratch);
  write_softmax<T, VEC>(x, a.y + blockIdx.x * a.n, a.n, total.m, 1.0f / total.s, threadIdx.x, blockDim.x);
}

void launch(const Problem& p, const DeviceTensors& t, void*, cudaStream_t stream) {
  dispatch_storage(p.dtype, [&](auto tag) {
    using T = decltype(tag);
    const Args<T> a = make_args<T>(p, t);
    dispatch_pack<T>(pack_width(a), [&](auto vec) {
      online_kernel<T, decltype(vec)::value><<<unsigned(a.m), threads_for(a.n, 1024), 0, stream>>>(a);
    });
  });
  NB_CHECK_LAUNCH();
}

}  // namespace

std::unique_ptr<Variant> make_online_variant() {
  return make_kernel_variant({
      "online", "online", "block per row: one-pass running (max, sum) merged across the block, then write "
      "(2 reads + 1 write)", launch, nullptr, nullptr, {}});
}

}  // namespace nb::softmax
