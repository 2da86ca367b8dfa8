// Shared-memory tree: one block of 256 threads per row. Each thread sums the squares of every
// 256th element (in fp32, whatever the storage type), a halving tree in shared memory adds the
// 256 partial sums, and the block writes y, re-reading its row (at most a few hundred KB) from L2.
#include "harness/cuda_check.hpp"
#include "kernels/primitives/storage.cuh"
#include "kernels/rms/grid.hpp"
#include "kernels/rows/rmsnorm_rows/spec.hpp"

namespace nb::rmsnorm_rows {
namespace {

constexpr int kThreads = 256;

template <class T>
__global__ void __launch_bounds__(kThreads)
    rmsnorm_rows_smem(const T* __restrict__ x, const T* __restrict__ w, T* __restrict__ y, long long rows, long long n,
                      float eps) {
  __shared__ float partial[kThreads];
  const int tid = threadIdx.x;
  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* xr = x + row * n;
    T* yr = y + row * n;
    float sum_sq = 0.0f;
    for (long long j = tid; j < n; j += kThreads) {
      const float v = dev::to_float(xr[j]);
      sum_sq += v * v;
    }
    partial[tid] = sum_sq;
    __syncthreads();
    for (int half = kThreads / 2; half > 0; half /= 2) {
      if (tid < half) partial[tid] += partial[tid + half];
      __syncthreads();
    }
    const float inv = rsqrtf(partial[0] / n + eps);
    for (long long j = tid; j < n; j += kThreads) yr[j] = dev::from_float<T>(dev::to_float(xr[j]) * inv * dev::to_float(w[j]));
    __syncthreads();  // partial[0] is read above before the next row overwrites it
  }
}

void launch(const Problem& problem, const DeviceTensors& t, void*, cudaStream_t stream) {
  const Shape s = Shape::of(problem);
  dispatch_storage(problem.dtype, [&](auto type) {
    using T = decltype(type);
    rmsnorm_rows_smem<T><<<rms::grid_blocks(s.m), kThreads, 0, stream>>>(t.ptr<const T>(X), t.ptr<const T>(W),
                                                                          t.ptr<T>(Y), s.m, s.n, s.eps);
  });
  NB_CHECK_LAUNCH();
}

}  // namespace

std::unique_ptr<Variant> make_smem_variant() {
  return make_kernel_variant({"smem", "smem",
                              "one 256-thread block per row; a shared-memory halving tree adds the partial sums; "
                              "y re-reads the row from L2",
                              launch});
}

}  // namespace nb::rmsnorm_rows
