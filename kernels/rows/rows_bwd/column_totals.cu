// Column totals: a block of 256 threads (1024 where the bands are many) per kColumns columns (4-32,
// narrower for shorter rows so the blocks fill the GPU); its thread rows (slices) each add every
// such-th partial row in order, four loads in flight (kColumns consecutive floats per lane group),
// then the slices' sums are halved in a fixed tree down to 8, which one thread row adds in order.
// The same bands and columns always give the same order, so the same bits.
#include "harness/cuda_check.hpp"
#include "kernels/primitives/storage.cuh"
#include "kernels/rms/grid.hpp"
#include "kernels/rows/rows_bwd/column_totals.hpp"

namespace nb::rows_bwd {
namespace {

constexpr int kLoadsInFlight = 4;
// From this many bands (fused_tma's 1320 at rows of 1024 and 660 at 2048, fused's 528) a block takes
// 1024 threads, four times the loads in flight an SM: the totals were bound by L2's latency there,
// and the rows' backward measured 0.3-0.7% faster on the H200 (docs/notes/memory-bound-round3.md,
// "Thirty-sixth"). Below it, 256 threads.
constexpr long long kWideBands = 512;

template <class T, int kColumns, int kThreads>
__global__ void __launch_bounds__(kThreads)
    column_totals(const float* __restrict__ partials, long long bands, long long n, T* __restrict__ out0,
                  T* __restrict__ out1) {
  constexpr int kSlices = kThreads / kColumns;
  static_assert(kSlices >= 8, "the slices' tree ends at 8, which thread row 0 adds");
  __shared__ float slice_sums[kSlices][kColumns + 1];
  const int column = int(threadIdx.x) % kColumns, slice = int(threadIdx.x) / kColumns;
  const float* sums = partials + blockIdx.y * bands * n;
  T* out = blockIdx.y == 0 ? out0 : out1;
  for (long long first = blockIdx.x * (long long)kColumns; first < n; first += gridDim.x * (long long)kColumns) {
    const long long col = first + column;
    float s = 0.0f;
    if (col < n) {
      long long b = slice;
      for (; b + (kLoadsInFlight - 1) * kSlices < bands; b += kLoadsInFlight * kSlices) {
        float v[kLoadsInFlight];
#pragma unroll
        for (int k = 0; k < kLoadsInFlight; ++k) v[k] = sums[(b + k * kSlices) * n + col];
#pragma unroll
        for (int k = 0; k < kLoadsInFlight; ++k) s += v[k];
      }
      for (; b < bands; b += kSlices) s += sums[b * n + col];
    }
    slice_sums[slice][column] = s;
    __syncthreads();
    // The slices' sums halved in a fixed tree down to 8, which thread row 0 adds in order.
#pragma unroll
    for (int half = kSlices / 2; half >= 8; half /= 2) {
      if (slice < half) slice_sums[slice][column] += slice_sums[slice + half][column];
      __syncthreads();
    }
    if (slice == 0 && col < n) {
      float total = slice_sums[0][column];
      for (int k = 1; k < 8; ++k) total += slice_sums[k][column];
      out[col] = dev::from_float<T>(total);
    }
    __syncthreads();
  }
}

template <class T, int kColumns>
void launch(const float* partials, long long bands, long long n, int sums, void* const out[2], cudaStream_t stream) {
  const dim3 grid(rms::grid_blocks(rms::ceil_div_ll(n, kColumns)), unsigned(sums));
  T* const out0 = static_cast<T*>(out[0]);
  T* const out1 = static_cast<T*>(sums > 1 ? out[1] : out[0]);
  if (bands >= kWideBands)
    column_totals<T, kColumns, 1024><<<grid, 1024, 0, stream>>>(partials, bands, n, out0, out1);
  else
    column_totals<T, kColumns, 256><<<grid, 256, 0, stream>>>(partials, bands, n, out0, out1);
  NB_CHECK_LAUNCH();
}

int column_totals_width(long long n) {
  // n / 128 columns a block, 4 to 32: rows of 512-4096 get 128 blocks (about one an SM of an
  // H100 or H200), where 32 columns gave 16-64 and left the other SMs idle.
  return n >= 4096 ? 32 : n >= 2048 ? 16 : n >= 1024 ? 8 : 4;
}

}  // namespace

void launch_column_totals(DType storage, const float* partials, long long bands, long long n, int sums,
                          void* const out[2], cudaStream_t stream) {
  dispatch_storage(storage, [&](auto t) {
    using T = decltype(t);
    switch (column_totals_width(n)) {
      case 4: return launch<T, 4>(partials, bands, n, sums, out, stream);
      case 8: return launch<T, 8>(partials, bands, n, sums, out, stream);
      case 16: return launch<T, 16>(partials, bands, n, sums, out, stream);
      default: return launch<T, 32>(partials, bands, n, sums, out, stream);
    }
  });
}

}  // namespace nb::rows_bwd
