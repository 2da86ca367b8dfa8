// Warp shuffles: one block per channel, both sums reduced with warp shuffles (one slot per warp
// in shared memory), then dx. The saved mean makes one pass safe here, unlike the forward.
#include "harness/cuda_check.hpp"
#include "kernels/batchnorm/batchnorm_bwd/spec.hpp"
#include "kernels/batchnorm/device.cuh"

namespace nb::batchnorm_bwd {
namespace {

using namespace nb::bn::dev;
constexpr int kBlock = 512;

__global__ void __launch_bounds__(kBlock) warp_kernel(bn::BwdArgs a, ChannelGeom g) {
  __shared__ float scratch[32];
  const long long c = blockIdx.x;
  const float2 s = block_sum2(bwd_sums_range<1>(a, g, c, 0, g.mv, threadIdx.x, blockDim.x, a.save_mean[c]), scratch);
  if (threadIdx.x == 0) commit_bwd_sums(a, c, s);
  dx_range<1>(a, g, c, 0, g.mv, threadIdx.x, blockDim.x, BwdAffine(a, c, s, float(g.mv)));
}

void launch(const Problem& p, const DeviceTensors& t, void*, cudaStream_t stream) {
  const bn::BwdArgs a = bwd_args(p, t);
  warp_kernel<<<unsigned(a.c), kBlock, 0, stream>>>(a, channel_geom(a.n, a.c, a.hw, 1, 1));
  NB_CHECK_LAUNCH();
}

}  // namespace

std::unique_ptr<Variant> make_warp_variant() {
  return make_kernel_variant({
      "warp", "warp", "one block per channel, both sums reduced with warp shuffles, then dx",
      launch, nullptr, nullptr, {}});
}

}  // namespace nb::batchnorm_bwd
