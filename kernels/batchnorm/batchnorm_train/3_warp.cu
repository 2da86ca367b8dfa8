// Warp shuffles: one block per channel, sum and sum of squares in ONE pass reduced by shuffles,
// var = E[x^2] - E[x]^2. Fast, and wrong where |mean| >> std: it fails `offset`, by design.
#include "kernels/batchnorm/device.cuh"
#include "kernels/batchnorm/batchnorm_train/spec.hpp"
#include "harness/cuda_check.hpp"

namespace nb::batchnorm_train {
namespace {

using namespace nb::bn::dev;
constexpr int kThreads = 512;

__global__ void __launch_bounds__(kThreads) warp_kernel(bn::FwdArgs a, ChannelGeom g) {
  __shared__ float scratch[32];
  const long long c = blockIdx.x;
  const float* const src[1] = {a.x};
  float2 s = make_float2(0.0f, 0.0f);
  for_block_slice<1, 1>(g, c, 0, src, [&](long long, const Loaded<1, 1>& l) {
    s.x += l.v[0][0];
    s.y = fmaf(l.v[0][0], l.v[0][0], s.y);
  });
  s = block_sum2(s, scratch);
  const float mean = s.x / float(g.mv);
  const float raw = s.y / float(g.mv) - mean * mean;
  const float var = raw < 0.0f ? 0.0f : raw;  // clamps cancellation, keeps a NaN (fmaxf would hide it)
  __shared__ float2 stats;
  if (threadIdx.x == 0) stats = commit_stats(a, c, mean, var);
  __syncthreads();
  normalize_range<1>(a, g, c, 0, g.mv, threadIdx.x, blockDim.x, Affine(a, c, stats));
}

void launch(const Problem& p, const DeviceTensors& t, void*, cudaStream_t stream) {
  const bn::FwdArgs a = fwd_args(p, t);
  warp_kernel<<<unsigned(a.c), kThreads, 0, stream>>>(a, channel_geom(a.n, a.c, a.hw, 1, 1));
  NB_CHECK_LAUNCH();
}

}  // namespace

std::unique_ptr<Variant> make_warp_variant() {
  return make_kernel_variant({
      "warp", "warp", "one block per channel, sum and sum of squares in one pass via warp shuffles",
      launch, nullptr, nullptr, {}});
}

}  // namespace nb::batchnorm_train
