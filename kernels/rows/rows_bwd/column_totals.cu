// Column totals: a block per 32 columns; its 32 thread rows each add every 32nd partial row in
// order (32 consecutive floats per warp load, kDepth loads in flight), then warp c adds column c's
// 32 slice sums in a butterfly. A fixed order: the same partials give the same bits.
#include "harness/cuda_check.hpp"
#include "kernels/primitives/storage.cuh"
#include "kernels/rms/grid.hpp"
#include "kernels/rows/rows_bwd/column_totals.hpp"

namespace nb::rows_bwd {
namespace {

// 32 slices: at 792 bands (fused_tma's at N = 1024 on the H200) 8 slices, each thread's 99 loads
// one after another, took 8.3 us of a 0.43 ms backward; 32 slices with 8 loads in flight made the
// whole backward 0.3-0.5% faster (docs/notes/memory-bound-round3.md, "Thirty-first").
constexpr int kColumns = 32, kSlices = 32, kDepth = 8;

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
    if (col < n) {
      long long b = threadIdx.y;
      for (; b + (kDepth - 1) * kSlices < bands; b += kDepth * kSlices) {
        float v[kDepth];
#pragma unroll
        for (int k = 0; k < kDepth; ++k) v[k] = sums[(b + k * kSlices) * n + col];
#pragma unroll
        for (int k = 0; k < kDepth; ++k) s += v[k];
      }
      for (; b < bands; b += kSlices) s += sums[b * n + col];
    }
    slice_sums[threadIdx.y][threadIdx.x] = s;
    __syncthreads();
    float total = slice_sums[threadIdx.x][threadIdx.y];  // warp y: column first + y, a slice a lane
#pragma unroll
    for (int offset = kSlices / 2; offset > 0; offset >>= 1) total += __shfl_xor_sync(0xffffffffu, total, offset);
    if (threadIdx.x == 0 && first + threadIdx.y < n) out[first + threadIdx.y] = dev::from_float<T>(total);
    __syncthreads();  // before the next columns' slice sums
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
