#pragma once
// The end of a band in the register kernels (3_fused.cu, posted_rows.cuh): each row slot's column
// sums added over the slots in order into the band's partial rows (column_totals.cu adds the bands
// in order after the kernel), so the result is the same bits on every launch.
#include <cuda_runtime.h>

#include "kernels/primitives/storage.cuh"
#include "kernels/rows/rows_bwd/args.cuh"
#include "kernels/rows/rows_bwd/fused_geometry.cuh"

namespace nb::rows_bwd {

// slot_sums: [sum][slot][pack k of the thread, k * blockDim.x + threadIdx.x][i], per_slot floats a
// slot. kSharedSums: the sums are there already (every sum's); else dw and db hold this thread's
// PPT packs of them, copied in one sum at a time. Ends on a CTA barrier: slot_sums is free after it.
template <int kSums, bool kSharedSums, int VEC, int kHeld, class T>
__device__ __forceinline__ void write_band_partials(const nb::dev::FloatPack<VEC> (&dw)[kHeld],
                                                    const nb::dev::FloatPack<VEC> (&db)[kHeld], float* slot_sums,
                                                    int per_slot, const Args<T>& a, const Geometry& g,
                                                    const Share& sh, float* __restrict__ partials) {
  const long long part_elements = (sh.end_pack - sh.first_pack) * VEC;
  const int threads = blockDim.x * blockDim.y;
  const int tid = threadIdx.y * blockDim.x + threadIdx.x;
#pragma unroll
  for (int sum = 0; sum < kSums; ++sum) {
    const float* sums = slot_sums + (kSharedSums ? sum * int(blockDim.y) * per_slot : 0);
    if constexpr (!kSharedSums) {
      const nb::dev::FloatPack<VEC>* held = sum == 0 ? dw : db;
#pragma unroll
      for (int k = 0; k < kHeld; ++k)
        *reinterpret_cast<nb::dev::FloatPack<VEC>*>(slot_sums + int(threadIdx.y) * per_slot +
                                                    (k * int(blockDim.x) + int(threadIdx.x)) * VEC) = held[k];
    }
    float* out = partials + (sum * g.bands + sh.band) * a.n + sh.first_pack * VEC;
    __syncthreads();
    for (long long e = tid; e < part_elements; e += threads) {
      float total = sums[e];
      for (int slot = 1; slot < int(blockDim.y); ++slot) total += sums[slot * per_slot + e];
      out[e] = total;
    }
    if (!kSharedSums) __syncthreads();  // before the next sum overwrites the buffer
  }
}

}  // namespace nb::rows_bwd
