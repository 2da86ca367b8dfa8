// Shared memory: one block per channel; sum(dy) and sum(dy*(x - mean)) end in a shared-memory
// tree, then the block writes dx for its channel.
#include "harness/cuda_check.hpp"
#include "kernels/batchnorm/batchnorm_bwd/spec.hpp"
#include "kernels/batchnorm/device.cuh"
#include "kernels/batchnorm/smem_tree.cuh"

namespace nb::batchnorm_bwd {
namespace {

using namespace nb::bn::dev;
constexpr int kBlock = 512;

__global__ void __launch_bounds__(kBlock) smem_kernel(bn::BwdArgs a, ChannelGeom g) {
  __shared__ float tree[kBlock];
  const long long c = blockIdx.x;
  float2 s = bwd_sums_range<1>(a, g, c, 0, g.mv, threadIdx.x, blockDim.x, a.save_mean[c]);
  s.x = tree_sum<kBlock>(s.x, tree);
  s.y = tree_sum<kBlock>(s.y, tree);
  if (threadIdx.x == 0) commit_bwd_sums(a, c, s);
  dx_range<1>(a, g, c, 0, g.mv, threadIdx.x, blockDim.x, BwdAffine(a, c, s, float(g.mv)));
}

void launch(const Problem& p, const DeviceTensors& t, void*, cudaStream_t stream) {
  const bn::BwdArgs a = bwd_args(p, t);
  smem_kernel<<<unsigned(a.c), kBlock, 0, stream>>>(a, channel_geom(a.n, a.c, a.hw, 1, 1));
  NB_CHECK_LAUNCH();
}

}  // namespace

std::unique_ptr<Variant> make_smem_variant() {
  return make_kernel_variant({
      "smem", "smem", "one block per channel, both sums reduced by a shared-memory tree, then dx",
      launch, nullptr, nullptr, {}});
}

}  // namespace nb::batchnorm_bwd
