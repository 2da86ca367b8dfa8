// Shared memory: one block per channel; each reduction (sum, then sum of squared deviations from
// the exact mean: two passes) ends in a classic shared-memory tree; a third pass writes y.
#include "kernels/batchnorm/device.cuh"
#include "kernels/batchnorm/smem_tree.cuh"
#include "kernels/batchnorm/batchnorm_train/spec.hpp"
#include "harness/cuda_check.hpp"

namespace nb::batchnorm_train {
namespace {

using namespace nb::bn::dev;
constexpr int kThreads = 512;

__global__ void __launch_bounds__(kThreads) smem_kernel(bn::FwdArgs a, ChannelGeom g) {
  __shared__ float tree[kThreads];
  __shared__ float2 stats;
  const long long c = blockIdx.x;
  const float* const src[1] = {a.x};
  float sum = 0;
  for_block_slice<1, 1>(g, c, 0, src, [&](long long, const Loaded<1, 1>& l) { sum += l.v[0][0]; });
  const float mean = tree_sum<kThreads>(sum, tree) / float(g.mv);
  float sq = 0;
  for_block_slice<1, 1>(g, c, 0, src, [&](long long, const Loaded<1, 1>& l) {
    const float d = l.v[0][0] - mean;
    sq = fmaf(d, d, sq);
  });
  sq = tree_sum<kThreads>(sq, tree);
  if (threadIdx.x == 0) stats = commit_stats(a, c, mean, sq / float(g.mv));
  __syncthreads();
  normalize_range<1>(a, g, c, 0, g.mv, threadIdx.x, blockDim.x, Affine(a, c, stats));
}

void launch(const Problem& p, const DeviceTensors& t, void*, cudaStream_t stream) {
  const bn::FwdArgs a = fwd_args(p, t);
  smem_kernel<<<unsigned(a.c), kThreads, 0, stream>>>(a, channel_geom(a.n, a.c, a.hw, 1, 1));
  NB_CHECK_LAUNCH();
}

}  // namespace

std::unique_ptr<Variant> make_smem_variant() {
  return make_kernel_variant({
      "smem", "smem", "one block per channel, two-pass statistics reduced by a shared-memory tree, then y",
      launch, nullptr, nullptr, {}});
}

}  // namespace nb::batchnorm_train
