// Naive: one thread per channel walks its N*H*W values three times (mean, variance, output).
// It accumulates in double: one serial float sum over millions of values would drift.
#include "kernels/batchnorm/device.cuh"
#include "kernels/batchnorm/batchnorm_train/spec.hpp"
#include "harness/cuda_check.hpp"

namespace nb::batchnorm_train {
namespace {

using namespace nb::bn::dev;

__global__ void naive_kernel(bn::FwdArgs a, ChannelGeom g) {
  const long long c = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (c >= a.c) return;
  const float* const src[1] = {a.x};
  double sum = 0, sq = 0;
  for_channel_range<1, 1>(g, c, 0, g.mv, 0, 1, src, [&](long long, const Loaded<1, 1>& l) { sum += l.v[0][0]; });
  const double mean = sum / g.mv;
  for_channel_range<1, 1>(g, c, 0, g.mv, 0, 1, src, [&](long long, const Loaded<1, 1>& l) {
    const double d = l.v[0][0] - mean;
    sq += d * d;
  });
  normalize_range<1>(a, g, c, 0, g.mv, 0, 1, Affine(a, c, commit_stats(a, c, float(mean), float(sq / g.mv))));
}

void launch(const Problem& p, const DeviceTensors& t, void*, cudaStream_t stream) {
  const bn::FwdArgs a = fwd_args(p, t);
  naive_kernel<<<unsigned(nb::dev::ceil_div(a.c, 128)), 128, 0, stream>>>(a, channel_geom(a.n, a.c, a.hw, 1, 1));
  NB_CHECK_LAUNCH();
}

}  // namespace

std::unique_ptr<Variant> make_naive_variant() {
  return make_kernel_variant({
      "naive", "naive", "one thread per channel, three serial passes (mean, variance, y) with double sums",
      launch, bn::one_thread_per_channel_limit, nullptr, {}});
}

}  // namespace nb::batchnorm_train
