// Warp shuffle: one warp per row, 8 rows per block. Lanes stride the row 32 elements apart (each
// load instruction one full line of fp32, half of one in bf16/fp16) and keep their running sums in
// double (a lane adds N/32 terms: 16K at N=512K), a butterfly of 5 xor-shuffles adds the lanes'
// sums with no shared memory and no barrier, and the warp writes y, re-reading the row from L1/L2.
#include "harness/cuda_check.hpp"
#include "kernels/primitives/reduce.cuh"
#include "kernels/primitives/storage.cuh"
#include "kernels/rms/grid.hpp"
#include "kernels/rows/rmsnorm_rows/spec.hpp"

namespace nb::rmsnorm_rows {
namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;

template <class T>
__global__ void __launch_bounds__(kThreads)
    rmsnorm_rows_warp(const T* __restrict__ x, const T* __restrict__ w, T* __restrict__ y, long long rows, long long n,
                      float eps) {
  const int lane = threadIdx.x & 31;
  const long long warps = static_cast<long long>(gridDim.x) * kWarps;
  for (long long row = blockIdx.x * static_cast<long long>(kWarps) + threadIdx.x / 32; row < rows; row += warps) {
    const T* xr = x + row * n;
    T* yr = y + row * n;
    double lane_sum = 0.0;
    for (long long j = lane; j < n; j += 32) {
      const double v = dev::to_float(xr[j]);
      lane_sum += v * v;
    }
    const float inv = rsqrtf(dev::warp_sum(static_cast<float>(lane_sum)) / n + eps);
    for (long long j = lane; j < n; j += 32) yr[j] = dev::from_float<T>(dev::to_float(xr[j]) * inv * dev::to_float(w[j]));
  }
}

void launch(const Problem& problem, const DeviceTensors& t, void*, cudaStream_t stream) {
  const Shape s = Shape::of(problem);
  const unsigned blocks = rms::grid_blocks(rms::ceil_div_ll(s.m, kWarps));
  dispatch_storage(problem.dtype, [&](auto type) {
    using T = decltype(type);
    rmsnorm_rows_warp<T><<<blocks, kThreads, 0, stream>>>(t.ptr<const T>(X), t.ptr<const T>(W), t.ptr<T>(Y), s.m, s.n,
                                                          s.eps);
  });
  NB_CHECK_LAUNCH();
}

}  // namespace

std::unique_ptr<Variant> make_warp_variant() {
  return make_kernel_variant(
      {"warp", "warp", "one warp per row; 5 xor-shuffles add the lanes' sums; y re-reads the row", launch});
}

}  // namespace nb::rmsnorm_rows
