// Warp shuffle: a warp owns 8 consecutive positions and splits their channels over 4 lane
// groups (lane = group*8 + position); two xor-shuffles add the groups' sums of squares, with no
// shared memory and no barrier. Each channel read is one full 32-byte sector; y re-reads x.
#include "harness/cuda_check.hpp"
#include "kernels/primitives/reduce.cuh"
#include "kernels/rms/grid.hpp"
#include "kernels/rmsnorm_nchw/spec.hpp"

namespace nb::rmsnorm_nchw {
namespace {

constexpr int kWarpPositions = 8;  // 8 floats: one 32-byte sector per channel row
constexpr int kGroups = 32 / kWarpPositions;
constexpr int kThreads = 256;

__global__ void __launch_bounds__(kThreads)
    rmsnorm_nchw_warp(const float* __restrict__ x, float* __restrict__ y, long long positions, long long plane,
                      int channels, float eps) {
  const int lane = threadIdx.x & 31, group = lane / kWarpPositions;
  const long long warps = static_cast<long long>(gridDim.x) * (kThreads / 32);
  const long long tiles = (positions + kWarpPositions - 1) / kWarpPositions;
  // The loop bound is the same for the whole warp, so every lane reaches the shuffles.
  for (long long tile = blockIdx.x * (kThreads / 32LL) + threadIdx.x / 32; tile < tiles; tile += warps) {
    const long long p = tile * kWarpPositions + lane % kWarpPositions;
    const bool active = p < positions;
    const long long offset = active ? (p / plane) * channels * plane + p % plane : 0;

    float sum_sq = 0.0f;
    if (active)
      for (int c = group; c < channels; c += kGroups) sum_sq += x[offset + c * plane] * x[offset + c * plane];
    for (int mask = kWarpPositions; mask < 32; mask *= 2) sum_sq += __shfl_xor_sync(dev::kFullMask, sum_sq, mask);
    const float inv = rsqrtf(sum_sq / channels + eps);
    if (active)
      for (int c = group; c < channels; c += kGroups) y[offset + c * plane] = x[offset + c * plane] * inv;
  }
}

void launch(const Problem& problem, const DeviceTensors& t, void*, cudaStream_t stream) {
  const Shape s = Shape::of(problem);
  const long long warp_tiles = rms::ceil_div_ll(s.positions(), kWarpPositions);
  const unsigned blocks = rms::grid_blocks(rms::ceil_div_ll(warp_tiles, kThreads / 32));
  rmsnorm_nchw_warp<<<blocks, kThreads, 0, stream>>>(t.in(X), t.out(Y), s.positions(), s.plane(),
                                                     static_cast<int>(s.c), s.eps);
  NB_CHECK_LAUNCH();
}

}  // namespace

std::unique_ptr<Variant> make_warp_variant() {
  return make_kernel_variant({"warp", "warp",
                              "a warp owns 8 positions, 4 lane groups split C, two xor-shuffles add the groups; "
                              "y re-reads x",
                              launch});
}

}  // namespace nb::rmsnorm_nchw
