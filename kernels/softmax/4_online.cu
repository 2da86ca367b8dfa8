// Online: one block per row; each thread keeps a running (max, sum) in one pass (Milakov &
// Gimelshein 2018), the block merges the pairs, and a second pass writes: 2 reads + 1 write.
#include "harness/cuda_check.hpp"
#include "kernels/softmax/common.cuh"
#include "kernels/softmax/variants.hpp"

namespace nb::softmax {
namespace {

__global__ void __launch_bounds__(1024) online_kernel(Args a) {
  __shared__ MaxSum scratch[32];
  const float* x = a.x + blockIdx.x * a.n;
  const MaxSum total = block_merge(online_accumulate(x, a.n, threadIdx.x, blockDim.x), scratch);
  write_softmax(x, a.y + blockIdx.x * a.n, a.n, total.m, 1.0f / total.s, threadIdx.x, blockDim.x);
}

void launch(const Problem& p, const DeviceTensors& t, void*, cudaStream_t stream) {
  const Args a = make_args(p, t);
  online_kernel<<<unsigned(a.m), threads_for(a.n, 1024), 0, stream>>>(a);
  NB_CHECK_LAUNCH();
}

}  // namespace

KernelVariantSpec online_variant() {
  return {"online", "online", "block per row: one-pass running (max, sum) merged across the block, then write "
          "(2 reads + 1 write)", launch, nullptr, nullptr, {}};
}

}  // namespace nb::softmax
