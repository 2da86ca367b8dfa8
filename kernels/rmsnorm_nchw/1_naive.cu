// Naive: one thread per (n, h, w) position loops over the C channels twice, once to sum the
// squares (in a double, the plain way to stay accurate over any C) and once to write y.
// Neighbouring threads read neighbouring positions, so even this is coalesced; but x is read
// twice, and the second read mostly misses L2 at KernelBench sizes.
#include "harness/cuda_check.hpp"
#include "kernels/rms/grid.hpp"
#include "kernels/rmsnorm_nchw/spec.hpp"

namespace nb::rmsnorm_nchw {
namespace {

__global__ void rmsnorm_nchw_naive(const float* __restrict__ x, float* __restrict__ y, long long positions,
                                   long long plane, int channels, float eps) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long p = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; p < positions; p += stride) {
    const long long image = p / plane, s = p % plane;
    const float* xp = x + image * channels * plane + s;
    float* yp = y + image * channels * plane + s;
    double sum_sq = 0.0;
    for (int c = 0; c < channels; ++c) sum_sq += static_cast<double>(xp[c * plane]) * xp[c * plane];
    const float denom = static_cast<float>(sqrt(sum_sq / channels + eps));
    for (int c = 0; c < channels; ++c) yp[c * plane] = xp[c * plane] / denom;
  }
}

void launch(const Problem& problem, const DeviceTensors& t, void*, cudaStream_t stream) {
  const Shape s = Shape::of(problem);
  constexpr int kThreads = 256;
  const unsigned blocks = rms::grid_blocks(rms::ceil_div_ll(s.positions(), kThreads));
  rmsnorm_nchw_naive<<<blocks, kThreads, 0, stream>>>(t.in(X), t.out(Y), s.positions(), s.plane(),
                                                      static_cast<int>(s.c), s.eps);
  NB_CHECK_LAUNCH();
}

}  // namespace

std::unique_ptr<Variant> make_naive_variant() {
  return make_kernel_variant({"naive", "naive",
                              "one thread per (n,h,w) position loops over C twice: sum of squares (in double), then y",
                              launch, nullptr, nullptr, {Distribution::wide}});
}

}  // namespace nb::rmsnorm_nchw
