#pragma once
// A row's two sums across a CTA's warps in half the shuffles of two butterflies: each warp folds
// its lanes onto two lanes (the first step trades halves, so every later step moves one float),
// stores them in its slot, and after the caller's barrier the slots are added across the lanes in
// log2(warps) steps instead of five. RMSNorm, which has no sum of g, folds and adds gx alone.
#include <cuda_runtime.h>

#include "kernels/rows/rows_bwd/args.cuh"

namespace nb::rows_bwd::dev {

// The warp's fold of v's sums onto its lanes: lanes 0-15 end with the warp's sum of g, 16-31 with
// its sum of gx (LayerNorm), or every lane with the sum of gx (RMSNorm). Five shuffles: lanes 0-15
// keep g and send gx across, 16-31 the reverse, then four steps fold each half. Whole warps.
template <bool kLayer>
__device__ __forceinline__ float fold_warp_row_sums(const RowSums& v) {
  const bool upper = (int(threadIdx.x) & 31) >= 16;
  float s = kLayer ? (upper ? v.gx : v.g) : v.gx;
  const float across = kLayer ? (upper ? v.g : v.gx) : v.gx;
  s += __shfl_xor_sync(0xffffffffu, across, 16);
#pragma unroll
  for (int offset = 8; offset > 0; offset >>= 1) s += __shfl_xor_sync(0xffffffffu, s, offset);
  return s;
}

// Stores the warp's sums of v into *slot: g from lane 0, gx from lane 16 (LayerNorm), or gx from
// lane 0 (RMSNorm). Every lane's values reach the storing lanes through the shuffles, so a storing
// lane's store issues after every lane's inputs to v have arrived. Call from whole warps.
template <bool kLayer>
__device__ __forceinline__ void store_warp_row_sums(const RowSums& v, RowSums* slot) {
  const int lane = int(threadIdx.x) & 31;
  const float s = fold_warp_row_sums<kLayer>(v);
  if (lane == 0) (kLayer ? slot->g : slot->gx) = s;
  if (kLayer && lane == 16) slot->gx = s;
}

// The warp's sums of v in every lane: the fold, then (LayerNorm) one shuffle trades the halves'.
template <bool kLayer>
__device__ __forceinline__ RowSums warp_row_sums(const RowSums& v) {
  const float s = fold_warp_row_sums<kLayer>(v);
  if (!kLayer) return {0.0f, s};
  const float other = __shfl_xor_sync(0xffffffffu, s, 16);
  return (int(threadIdx.x) & 31) >= 16 ? RowSums{other, s} : RowSums{s, other};
}

// Adds `total` across each group of `span` lanes (a power of two) by butterfly steps; every lane
// adds the same pairs in the same tree, so every lane of a group gets the same bits. RMSNorm's
// slots hold no g: its g comes back 0.
template <bool kLayer>
__device__ __forceinline__ RowSums add_across_lanes(RowSums total, int span) {
  for (int offset = span >> 1; offset > 0; offset >>= 1) {
    if (kLayer) total.g += __shfl_xor_sync(0xffffffffu, total.g, offset);
    total.gx += __shfl_xor_sync(0xffffffffu, total.gx, offset);
  }
  if (!kLayer) total.g = 0.0f;
  return total;
}

// The sums of slots[0, warps) (warps <= 32) in every thread: lane l loads slot l mod P (P the power of
// two at or above warps; slots past warps count 0), and log2(P) butterfly steps add them.
// (Adding the slots one after another in each thread made every add wait on its load: `fused`
// took up to 55% longer on long rows, H200.)
template <bool kLayer>
__device__ __forceinline__ RowSums add_warp_row_sums(const RowSums* slots, int warps) {
  const int span = warps > 1 ? 2 << (31 - __clz(warps - 1)) : 1;
  const int slot = int(threadIdx.x) & (span - 1);
  const RowSums mine = slot < warps ? slots[slot] : RowSums{0.0f, 0.0f};
  return add_across_lanes<kLayer>(mine, span);
}

// The same over kSpan slots (a power of two at or above the warps), those past the warps holding
// zeros: no count to test, where a kernel's registers are full (fused_tma's count and mask spilled).
template <bool kLayer, int kSpan>
__device__ __forceinline__ RowSums add_padded_warp_row_sums(const RowSums* slots) {
  static_assert(kSpan > 0 && kSpan <= 32 && (kSpan & (kSpan - 1)) == 0, "kSpan: a power of two up to 32");
  return add_across_lanes<kLayer>(slots[threadIdx.x & (kSpan - 1)], kSpan);
}

}  // namespace nb::rows_bwd::dev
