// Column totals: a block per 32 columns; its 8 thread rows each add every 8th partial row in
// order (32 consecutive floats per warp load), then one thread row adds the 8 results in order.
#include "harness/cuda_check.hpp"
#include "kernels/primitives/storage.cuh"
#include "kernels/rms/grid.hpp"
#include "kernels/rows/rows_bwd/column_totals.hpp"

namespace nb::rows_bwd {
namespace {

constexpr int kColumns = 32, kSlices = 8;

template <class T>
__global__ void __launch_bounds__(kColumns* kSlices)
    column_totals(const float* __restrict__ partials, long long bands, long long n, T* __restrict__ out0,
                  T* __restrict__ out1) {
  __shared__ float slice_sums[kSlices][kColumns + 1];
  const float* sums = partials + blockIdx.y * bands * n;
  T* out = blockIdx.y == 0 ? out0 : out1;
  for (long long first = blockIdx.x * (long long)kColumns; first < n; first += gridDim.x * (long long)kColumns) {
    const long long col = first + threadIdx.x;
    float s = 0.0f;
    if (col < n)
      for (long long b = threadIdx.y; b < bands; b += kSlices) s += sums[b * n + col];
    slice_sums[threadIdx.y][threadIdx.x] = s;
    __syncthreads();
    if (threadIdx.y == 0 && col < n) {
      float total = slice_sums[0][threadIdx.x];
      for (int k = 1; k < kSlices; ++k) total += slice_sums[k][threadIdx.x];
      out[col] = dev::from_float<T>(total);
    }
    __syncthreads();
  }
}

}  // namespace

void launch_column_totals(DType storage, const float* partials, long long bands, long long n, int sums,
                          void* const out[2], cudaStream_t stream) {
  dispatch_storage(storage, [&](auto t) {
    using T = decltype(t);
    const dim3 grid(rms::grid_blocks(rms::ceil_div_ll(n, kColumns)), unsigned(sums));
    column_totals<T><<<grid, dim3(kColumns, kSlices), 0, stream>>>(partials, bands, n, static_cast<T*>(out[0]),
                                                                    static_cast<T*>(sums > 1 ? out[1] : out[0]));
    NB_CHECK_LAUNCH();
  });
}

}  // namespace nb::rows_bwd
