// Naive: one thread per channel; a serial pass sums dy and dy*(x - mean) in double, a second
// serial pass writes dx.
#include "harness/cuda_check.hpp"
#include "kernels/batchnorm/batchnorm_bwd/spec.hpp"
#include "kernels/batchnorm/device.cuh"

namespace nb::batchnorm_bwd {
namespace {

using namespace nb::bn::dev;

__global__ void naive_kernel(bn::BwdArgs a, ChannelGeom g) {
  const long long c = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (c >= a.c) return;
  const float* const src[2] = {a.x, a.dy};
  const double mean = a.save_mean[c];
  double sum_dy = 0, sum_dy_xc = 0;
  for_channel_range<1, 2>(g, c, 0, g.mv, 0, 1, src, [&](long long, const Loaded<1, 2>& l) {
    sum_dy += l.v[1][0];
    sum_dy_xc += double(l.v[1][0]) * (double(l.v[0][0]) - mean);
  });
  const float2 sums = make_float2(float(sum_dy), float(sum_dy_xc));
  commit_bwd_sums(a, c, sums);
  dx_range<1>(a, g, c, 0, g.mv, 0, 1, BwdAffine(a, c, sums, float(g.mv)));
}

void launch(const Problem& p, const DeviceTensors& t, void*, cudaStream_t stream) {
  const bn::BwdArgs a = bwd_args(p, t);
  naive_kernel<<<unsigned(nb::dev::ceil_div(a.c, 128)), 128, 0, stream>>>(a, channel_geom(a.n, a.c, a.hw, 1, 1));
  NB_CHECK_LAUNCH();
}

}  // namespace

std::unique_ptr<Variant> make_naive_variant() {
  return make_kernel_variant({
      "naive", "naive", "one thread per channel: a serial double-precision sum pass, then a serial dx pass",
      launch, bn::one_thread_per_channel_limit, nullptr, {}});
}

}  // namespace nb::batchnorm_bwd
