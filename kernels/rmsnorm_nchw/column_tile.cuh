#pragma once
// The tile of 4_register_tile.cu: kCols columns of VEC consecutive positions of one image, by all
// C channels. threadIdx.x picks the column, threadIdx.y the channel slice (channels slice,
// slice + blockDim.y, ...); the slices' partial results meet in shared memory.
#include <cuda_runtime.h>

#include "kernels/primitives/reduce.cuh"
#include "kernels/rms/pack.cuh"
#include "kernels/rms/rms_math.cuh"

namespace nb::rmsnorm_nchw {

inline constexpr int kCols = 32;      // one warp wide: a channel row of a tile is 32*VEC floats
inline constexpr int kMaxSlices = 8;  // at most 8 warps per block

struct TileGeometry {
  long long plane;            // H*W: the channel stride
  int channels;
  long long tiles_per_image;  // ceil(plane / (kCols*VEC))
  long long tiles;            // N * tiles_per_image
  float inv_channels, eps;
};

template <int VEC>
using Partials = rms::Pack<VEC> (*)[kCols];

// Where this thread's column starts (channel 0) in tile `tile`, and whether it is inside H*W.
struct TileColumn {
  long long offset;
  bool active;
};

template <int VEC>
__device__ __forceinline__ TileColumn tile_column(const TileGeometry& g, long long tile) {
  const long long image = tile / g.tiles_per_image;
  const long long s = ((tile % g.tiles_per_image) * kCols + threadIdx.x) * VEC;
  return {image * g.channels * g.plane + s, s < g.plane};
}

template <int VEC>
__device__ __forceinline__ rms::Pack<VEC> lanewise_product(const rms::Pack<VEC>& a, const rms::Pack<VEC>& b) {
  rms::Pack<VEC> r;
#pragma unroll
  for (int i = 0; i < VEC; ++i) r.v[i] = a.v[i] * b.v[i];
  return r;
}

// Combines every slice's pack of this column with op; the caller puts a barrier between this
// and the next use of `partial`.
template <int VEC, class Op>
__device__ __forceinline__ rms::Pack<VEC> combine_slices(const rms::Pack<VEC>& mine, Partials<VEC> partial, Op op) {
  partial[threadIdx.y][threadIdx.x] = mine;
  __syncthreads();
  rms::Pack<VEC> r = partial[0][threadIdx.x];
  for (int s = 1; s < static_cast<int>(blockDim.y); ++s) {
    const rms::Pack<VEC> other = partial[s][threadIdx.x];
#pragma unroll
    for (int i = 0; i < VEC; ++i) r.v[i] = op(r.v[i], other.v[i]);
  }
  return r;
}

// The reciprocal RMS of each of this thread's VEC positions. each_pack(f) calls f on every
// channel pack this thread owns (zeros are harmless). When some sum of squares in the block
// overflows, the block visits its packs twice more to rescale by a power of two (rms_math.cuh).
// Ends with a barrier, so `partial` may be reused at once.
template <int VEC, class EachPack>
__device__ __forceinline__ rms::Pack<VEC> column_inv_rms(EachPack each_pack, Partials<VEC> partial,
                                                         float inv_channels, float eps) {
  rms::Pack<VEC> sq = rms::zero_pack<VEC>();
  each_pack([&](const rms::Pack<VEC>& a) {
#pragma unroll
    for (int i = 0; i < VEC; ++i) sq.v[i] = fmaf(a.v[i], a.v[i], sq.v[i]);
  });
  const rms::Pack<VEC> total = combine_slices<VEC>(sq, partial, dev::SumOp{});
  bool overflow = false;
#pragma unroll
  for (int i = 0; i < VEC; ++i) overflow = overflow || rms::sum_overflowed(total.v[i]);

  rms::Pack<VEC> inv;
  if (!__syncthreads_or(overflow)) {
#pragma unroll
    for (int i = 0; i < VEC; ++i) inv.v[i] = rms::inv_rms(total.v[i], inv_channels, eps);
    return inv;
  }
  rms::Pack<VEC> max_abs = rms::zero_pack<VEC>();
  each_pack([&](const rms::Pack<VEC>& a) {
#pragma unroll
    for (int i = 0; i < VEC; ++i) max_abs.v[i] = fmaxf(max_abs.v[i], fabsf(a.v[i]));
  });
  max_abs = combine_slices<VEC>(max_abs, partial, dev::MaxOp{});
  __syncthreads();
  rms::Pack<VEC> scale;
#pragma unroll
  for (int i = 0; i < VEC; ++i) scale.v[i] = rms::pow2_scale_for(max_abs.v[i]);
  sq = rms::zero_pack<VEC>();
  each_pack([&](const rms::Pack<VEC>& a) {
#pragma unroll
    for (int i = 0; i < VEC; ++i) {
      const float s = a.v[i] * scale.v[i];
      sq.v[i] = fmaf(s, s, sq.v[i]);
    }
  });
  const rms::Pack<VEC> scaled_total = combine_slices<VEC>(sq, partial, dev::SumOp{});
  __syncthreads();
#pragma unroll
  for (int i = 0; i < VEC; ++i) inv.v[i] = rms::scaled_inv_rms(scaled_total.v[i], inv_channels, eps, scale.v[i]);
  return inv;
}

}  // namespace nb::rmsnorm_nchw
