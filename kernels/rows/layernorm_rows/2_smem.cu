// Shared-memory tree: one block of 256 threads per row. Each thread adds up every 256th value and
// its square in fp32, a halving tree in shared memory adds the 256 pairs, var = E[x^2] - mean^2
// (which cancels when |mean| >> std: fails `offset`), and the block writes y, re-reading its row
// from L2.
#include "harness/cuda_check.hpp"
#include "kernels/primitives/storage.cuh"
#include "kernels/rows/layernorm_rows/spec.hpp"
#include "kernels/rms/grid.hpp"

namespace nb::layernorm_rows {
namespace {

constexpr int kThreads = 256;

template <class T>
__global__ void __launch_bounds__(kThreads)
    layernorm_rows_smem(const T* __restrict__ x, const T* __restrict__ w, const T* __restrict__ b, T* __restrict__ y,
                        float* __restrict__ mean, float* __restrict__ rstd, long long rows, long long n, float eps) {
  __shared__ float partial_sum[kThreads], partial_sq[kThreads];
  const int tid = threadIdx.x;
  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* xr = x + row * n;
    T* yr = y + row * n;
    float sum = 0.0f, sum_sq = 0.0f;
    for (long long j = tid; j < n; j += kThreads) {
      const float v = dev::to_float(xr[j]);
      sum += v;
      sum_sq = fmaf(v, v, sum_sq);
    }
    partial_sum[tid] = sum;
    partial_sq[tid] = sum_sq;
    __syncthreads();
    for (int half = kThreads / 2; half > 0; half /= 2) {
      if (tid < half) {
        partial_sum[tid] += partial_sum[tid + half];
        partial_sq[tid] += partial_sq[tid + half];
      }
      __syncthreads();
    }
    const float mu = partial_sum[0] / n;
    float var = partial_sq[0] / n - mu * mu;
    if (var < 0.0f) var = 0.0f;  // cancellation; a NaN stays NaN
    const float inv = rsqrtf(var + eps);
    for (long long j = tid; j < n; j += kThreads)
      yr[j] = dev::from_float<T>((dev::to_float(xr[j]) - mu) * inv * dev::to_float(w[j]) + dev::to_float(b[j]));
    if (tid == 0) {
      mean[row] = mu;
      rstd[row] = inv;
    }
    __syncthreads();  // the tree's root is read above before the next row overwrites it
  }
}

template <class T>
void launch_typed(const Shape& s, const DeviceTensors& t, cudaStream_t stream) {
  layernorm_rows_smem<T><<<rms::grid_blocks(s.m), kThreads, 0, stream>>>(
      t.ptr<const T>(X), t.ptr<const T>(W), t.ptr<const T>(B), t.ptr<T>(Y), t.ptr<float>(MEAN), t.ptr<float>(RSTD),
      s.m, s.n, s.eps);
  NB_CHECK_LAUNCH();
}

void launch(const Problem& problem, const DeviceTensors& t, void*, cudaStream_t stream) {
  dispatch_storage(problem.dtype, [&](auto stored) { launch_typed<decltype(stored)>(Shape::of(problem), t, stream); });
}

}  // namespace

std::unique_ptr<Variant> make_smem_variant() {
  return make_kernel_variant({"smem", "smem",
                              "one 256-thread block per row; a shared-memory halving tree adds the partial sums and "
                              "sums of squares; y re-reads the row from L2",
                              launch});
}

}  // namespace nb::layernorm_rows
