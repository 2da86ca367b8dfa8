// Warp shuffle: one warp per row, 8 rows per block. Lanes stride the row 32 floats apart (each
// load instruction one full 128-byte line) and keep their running sums in double (a lane adds
// N/32 terms: 16K at N=512K), a butterfly of 5 xor-shuffles adds the lanes' sums with no shared
// memory and no barrier, and the warp writes y, re-reading the row from L1/L2.
#include "harness/cuda_check.hpp"
#include "kernels/common/reduce.cuh"
#include "kernels/rmsnorm_common/grid.hpp"
#include "kernels/rmsnorm_rows/spec.hpp"

namespace nb::rmsnorm_rows {
namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;

__global__ void __launch_bounds__(kThreads)
    rmsnorm_rows_warp(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ y,
                      long long rows, long long n, float eps) {
  const int lane = threadIdx.x & 31;
  const long long warps = static_cast<long long>(gridDim.x) * kWarps;
  for (long long row = blockIdx.x * static_cast<long long>(kWarps) + threadIdx.x / 32; row < rows; row += warps) {
    const float* xr = x + row * n;
    float* yr = y + row * n;
    double lane_sum = 0.0;
    for (long long j = lane; j < n; j += 32) lane_sum += static_cast<double>(xr[j]) * xr[j];
    const float inv = rsqrtf(dev::warp_sum(static_cast<float>(lane_sum)) / n + eps);
    for (long long j = lane; j < n; j += 32) yr[j] = xr[j] * inv * w[j];
  }
}

void launch(const Problem& problem, const DeviceTensors& t, void*, cudaStream_t stream) {
  const Shape s = Shape::of(problem);
  const unsigned blocks = rms::grid_blocks(rms::ceil_div_ll(s.m, kWarps));
  rmsnorm_rows_warp<<<blocks, kThreads, 0, stream>>>(t.in(X), t.in(W), t.out(Y), s.m, s.n, s.eps);
  NB_CHECK_LAUNCH();
}

}  // namespace

std::unique_ptr<Variant> make_warp_variant() {
  return make_kernel_variant(
      {"warp", "warp", "one warp per row; 5 xor-shuffles add the lanes' sums; y re-reads the row", launch});
}

}  // namespace nb::rmsnorm_rows
