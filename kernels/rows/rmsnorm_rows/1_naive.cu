// Naive: one thread per row loops over its N elements twice, once to sum the squares (in a double:
// a float running sum over 1e5 terms drifts past the 1e-5 tolerance) and once to write y.
// Neighbouring threads read addresses N elements apart, so every warp load touches 32 cache
// lines and only L1 reuse across the loop keeps it from being hopeless. Any storage type T
// (float, bf16, fp16), converted to fp32 as it is read.
#include "harness/cuda_check.hpp"
#include "kernels/primitives/storage.cuh"
#include "kernels/rms/grid.hpp"
#include "kernels/rows/rmsnorm_rows/spec.hpp"

namespace nb::rmsnorm_rows {
namespace {

template <class T>
__global__ void rmsnorm_rows_naive(const T* __restrict__ x, const T* __restrict__ w, T* __restrict__ y, long long rows,
                                   long long n, float eps) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long row = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; row < rows; row += stride) {
    const T* xr = x + row * n;
    T* yr = y + row * n;
    double sum_sq = 0.0;
    for (long long j = 0; j < n; ++j) {
      const double v = dev::to_float(xr[j]);
      sum_sq += v * v;
    }
    const float denom = static_cast<float>(sqrt(sum_sq / n + eps));
    for (long long j = 0; j < n; ++j) yr[j] = dev::from_float<T>(dev::to_float(xr[j]) / denom * dev::to_float(w[j]));
  }
}

void launch(const Problem& problem, const DeviceTensors& t, void*, cudaStream_t stream) {
  const Shape s = Shape::of(problem);
  constexpr int kThreads = 128;
  const unsigned blocks = rms::grid_blocks(rms::ceil_div_ll(s.m, kThreads));
  dispatch_storage(problem.dtype, [&](auto type) {
    using T = decltype(type);
    rmsnorm_rows_naive<T><<<blocks, kThreads, 0, stream>>>(t.ptr<const T>(X), t.ptr<const T>(W), t.ptr<T>(Y), s.m, s.n,
                                                           s.eps);
  });
  NB_CHECK_LAUNCH();
}

}  // namespace

std::unique_ptr<Variant> make_naive_variant() {
  return make_kernel_variant(
      {"naive", "naive", "one thread per row loops over N twice: sum of squares (in double), then y", launch, nullptr,
       nullptr, {Distribution::wide}});
}

}  // namespace nb::rmsnorm_rows
