// Warp shuffle: one warp per row, 8 rows per block. Lanes stride the row 32 values apart (each
// load instruction one contiguous run), keep a running sum and sum of squares in fp32, two
// butterflies of 5 xor-shuffles add the lanes' pairs with no shared memory and no barrier,
// var = E[x^2] - mean^2 (fails `offset`), and the warp writes y, re-reading the row from L1/L2.
#include "harness/cuda_check.hpp"
#include "kernels/primitives/reduce.cuh"
#include "kernels/primitives/storage.cuh"
#include "kernels/rows/layernorm_rows/spec.hpp"
#include "kernels/rms/grid.hpp"

namespace nb::layernorm_rows {
namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;

template <class T>
__global__ void __launch_bounds__(kThreads)
    layernorm_rows_warp(const T* __restrict__ x, const T* __restrict__ w, const T* __restrict__ b, T* __restrict__ y,
                        float* __restrict__ mean, float* __restrict__ rstd, long long rows, long long n, float eps) {
  const int lane = threadIdx.x & 31;
  const long long warps = static_cast<long long>(gridDim.x) * kWarps;
  for (long long row = blockIdx.x * static_cast<long long>(kWarps) + threadIdx.x / 32; row < rows; row += warps) {
    const T* xr = x + row * n;
    T* yr = y + row * n;
    float sum = 0.0f, sum_sq = 0.0f;
    for (long long j = lane; j < n; j += 32) {
      const float v = dev::to_float(xr[j]);
      sum += v;
      sum_sq = fmaf(v, v, sum_sq);
    }
    const float mu = dev::warp_sum(sum) / n;
    float var = dev::warp_sum(sum_sq) / n - mu * mu;
    if (var < 0.0f) var = 0.0f;  // cancellation; a NaN stays NaN
    const float inv = rsqrtf(var + eps);
    for (long long j = lane; j < n; j += 32)
      yr[j] = dev::from_float<T>((dev::to_float(xr[j]) - mu) * inv * dev::to_float(w[j]) + dev::to_float(b[j]));
    if (lane == 0) {
      mean[row] = mu;
      rstd[row] = inv;
    }
  }
}

template <class T>
void launch_typed(const Shape& s, const DeviceTensors& t, cudaStream_t stream) {
  const unsigned blocks = rms::grid_blocks(rms::ceil_div_ll(s.m, kWarps));
  layernorm_rows_warp<T><<<blocks, kThreads, 0, stream>>>(t.ptr<const T>(X), t.ptr<const T>(W), t.ptr<const T>(B),
                                                           t.ptr<T>(Y), t.ptr<float>(MEAN), t.ptr<float>(RSTD), s.m,
                                                           s.n, s.eps);
  NB_CHECK_LAUNCH();
}

void launch(const Problem& problem, const DeviceTensors& t, void*, cudaStream_t stream) {
  dispatch_storage(problem.dtype, [&](auto stored) { launch_typed<decltype(stored)>(Shape::of(problem), t, stream); });
}

}  // namespace

std::unique_ptr<Variant> make_warp_variant() {
  return make_kernel_variant({"warp", "warp",
                              "one warp per row; 5 xor-shuffles add the lanes' sums and sums of squares; y re-reads "
                              "the row",
                              launch});
}

}  // namespace nb::layernorm_rows
