// Naive: one thread per row walks its N values twice: once for the sum and the sum of squares, in
// double (a float E[x^2] - mean^2 loses the variance at 1e4 + N(0,1), and x^2 overflows at 1e20),
// then once to write y. Neighbouring threads read addresses N values apart: every warp load
// touches 32 cache lines, and only L1 reuse along the row keeps it from being hopeless.
#include "harness/cuda_check.hpp"
#include "kernels/primitives/storage.cuh"
#include "kernels/rows/layernorm_rows/spec.hpp"
#include "kernels/rms/grid.hpp"

namespace nb::layernorm_rows {
namespace {

template <class T>
__global__ void layernorm_rows_naive(const T* __restrict__ x, const T* __restrict__ w, const T* __restrict__ b,
                                     T* __restrict__ y, float* __restrict__ mean, float* __restrict__ rstd,
                                     long long rows, long long n, float eps) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long row = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; row < rows; row += stride) {
    const T* xr = x + row * n;
    T* yr = y + row * n;
    double sum = 0.0, sum_sq = 0.0;
    for (long long j = 0; j < n; ++j) {
      const double v = dev::to_float(xr[j]);
      sum += v;
      sum_sq += v * v;
    }
    const double mu = sum / n;
    double var = sum_sq / n - mu * mu;
    if (var < 0.0) var = 0.0;  // rounding; a NaN stays NaN (fmax would drop it)
    const float inv = static_cast<float>(1.0 / sqrt(var + eps));
    for (long long j = 0; j < n; ++j) {
      const float centered = static_cast<float>(dev::to_float(xr[j]) - mu);
      yr[j] = dev::from_float<T>(centered * inv * dev::to_float(w[j]) + dev::to_float(b[j]));
    }
    mean[row] = static_cast<float>(mu);
    rstd[row] = inv;
  }
}

template <class T>
void launch_typed(const Shape& s, const DeviceTensors& t, cudaStream_t stream) {
  constexpr int kThreads = 128;
  const unsigned blocks = rms::grid_blocks(rms::ceil_div_ll(s.m, kThreads));
  layernorm_rows_naive<T><<<blocks, kThreads, 0, stream>>>(t.ptr<const T>(X), t.ptr<const T>(W), t.ptr<const T>(B),
                                                            t.ptr<T>(Y), t.ptr<float>(MEAN), t.ptr<float>(RSTD), s.m,
                                                            s.n, s.eps);
  NB_CHECK_LAUNCH();
}

void launch(const Problem& problem, const DeviceTensors& t, void*, cudaStream_t stream) {
  dispatch_storage(problem.dtype, [&](auto stored) { launch_typed<decltype(stored)>(Shape::of(problem), t, stream); });
}

}  // namespace

std::unique_ptr<Variant> make_naive_variant() {
  return make_kernel_variant({"naive", "naive",
                              "one thread per row loops over N twice: sum and sum of squares (in double), then y",
                              launch, nullptr, nullptr,
                              {Distribution::offset, Distribution::tiny_var, Distribution::wide}});
}

}  // namespace nb::layernorm_rows
