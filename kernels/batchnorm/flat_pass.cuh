#pragma once
// The elementwise pass of the split variants (forward y, backward dx) as one sweep over the whole
// NCHW tensor in address order, like a copy: block b owns a contiguous chunk, the channel of each
// vector is (i / hwv) % C. Walking channel slices instead (1 MB runs 64 MB apart at 64x64x512x512)
// mixes reads and writes at hundreds of places at once, and DRAM served that at 2.5 TB/s.
#include <cuda_runtime.h>

#include "kernels/batchnorm/device.cuh"

namespace nb::bn::dev {

inline constexpr int kFlatThreads = 256;
inline constexpr int kFlatUnroll = 4;                                   // vectors in flight per thread
inline constexpr long long kFlatChunk = kFlatThreads * kFlatUnroll * 4;  // vectors per block

// The tensor as `total` vectors of VEC floats; runs of hwv vectors belong to channels 0..C-1 in turn.
struct FlatGeom {
  long long total;
  unsigned hwv, c;
  FastDivmod by_hwv, by_c;  // numerators stay below 2^31: offsets inside a chunk, channel counters
};

__host__ inline FlatGeom flat_geom(long long n, long long c, long long hw, int vec) {
  const unsigned hwv = unsigned(hw / vec);
  return {n * c * hwv, hwv, unsigned(c), FastDivmod(hwv), FastDivmod(unsigned(c))};
}

__host__ inline unsigned flat_blocks(const FlatGeom& g) { return unsigned(nb::dev::ceil_div(g.total, kFlatChunk)); }

// Chunk blockIdx.x of the tensor: dst[i] = out of channel_fn(c) applied to the NT sources at i.
// channel_fn(c) gives a channel's functor F; apply(f, loaded, out) computes the VEC outputs. F is
// rebuilt only when the channel changes (once per run of hwv vectors).
// TAIL_FIRST: the chunks from the end of the tensor down, so that the pass starts with what a
// pass in address order before it left in L2; the sources are read for the last time and dst is
// not read again, so both are evict-first, and the tail stays until the pass reaches it.
template <int VEC, int NT, bool TAIL_FIRST = false, class ChannelFn, class Apply>
__device__ __forceinline__ void flat_channel_map(const FlatGeom& g, const float* const (&src)[NT], float* dst,
                                                 ChannelFn channel_fn, Apply apply) {
  const long long start = (TAIL_FIRST ? gridDim.x - 1LL - blockIdx.x : (long long)blockIdx.x) * kFlatChunk;
  const unsigned count = unsigned(min(kFlatChunk, g.total - start));
  const unsigned long long run0 = (unsigned long long)start / g.hwv;
  const unsigned off0 = unsigned(start - (long long)run0 * g.hwv), c0 = unsigned(run0 % g.c);
  auto channel_at = [&](unsigned p) {
    const unsigned k = c0 + g.by_hwv.div(off0 + p);
    return k - g.by_c.div(k) * g.c;
  };
  unsigned last_c = channel_at(threadIdx.x);
  auto f = channel_fn(last_c);
  unsigned p = threadIdx.x;
  for (; p + (kFlatUnroll - 1) * kFlatThreads < count; p += kFlatUnroll * kFlatThreads) {
    Loaded<VEC, NT> l[kFlatUnroll];
#pragma unroll
    for (int u = 0; u < kFlatUnroll; ++u) l[u] = load_all<VEC, NT, TAIL_FIRST>(src, start + p + u * kFlatThreads);
#pragma unroll
    for (int u = 0; u < kFlatUnroll; ++u) {
      const unsigned c = channel_at(p + u * kFlatThreads);
      if (c != last_c) f = channel_fn(last_c = c);
      float out[VEC];
      apply(f, l[u], out);
      store_vec<VEC, TAIL_FIRST>(dst, start + p + u * kFlatThreads, out);
    }
  }
  for (; p < count; p += kFlatThreads) {
    const unsigned c = channel_at(p);
    if (c != last_c) f = channel_fn(last_c = c);
    float out[VEC];
    apply(f, load_all<VEC, NT, TAIL_FIRST>(src, start + p), out);
    store_vec<VEC, TAIL_FIRST>(dst, start + p, out);
  }
}

}  // namespace nb::bn::dev
