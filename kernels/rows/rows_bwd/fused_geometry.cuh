#pragma once
// What the fused row backwards (3_fused.cu: register and streamed modes; 5_fused_tma.cu: rows
// fed by TMA) share on the device: the launch's geometry (bands of rows, parts of a row over a
// cluster), each CTA's share of it, and the cluster's exchange of the row sums.
#include <cuda_runtime.h>

#include "kernels/primitives/cluster_exchange.cuh"
#include "kernels/rows/rows_bwd/args.cuh"
#include "kernels/rows/rows_bwd/fused_plan.hpp"

namespace nb::rows_bwd {

struct Geometry {
  long long bands, packs, packs_per_part;
  int parts;
  float inv_n;
};

// The rows and packs one CTA works on: its cluster's band, its part of each row. The bands are
// dealt (kernels/rows/dealt_bands.hpp): band b holds rows b, b + bands, b + 2 bands, ... Dealt
// against contiguous in one call (H200, bf16): `fused_tma` 3-10% faster at N = 2048-8192, RMSNorm's
// 7% at 1024 and 4-8% at 16384-32768, level past that; `fused` 0.5-2.5% faster to 8192 (RMSNorm's
// to 16384), level past (docs/notes/memory-bound-round3.md, "Thirty-first" and "Thirty-second").
struct Share {
  long long rows, first_pack, end_pack, band, bands;
  __device__ long long row(long long r) const { return band_row(band, bands, r); }  // the band's row r in x
};

__device__ __forceinline__ Share share_of(const Geometry& g, long long m) {
  const long long band = blockIdx.x / g.parts, part = blockIdx.x % g.parts;
  const long long first = part * g.packs_per_part;
  return {band_rows(m, band, g.bands), first,
          first + g.packs_per_part < g.packs ? first + g.packs_per_part : g.packs, band, g.bands};
}

// A cluster's row sums go through a ClusterExchange (kernels/primitives/cluster_exchange.cuh):
// each CTA pushes its slot's sums into every peer and waits on its own barrier, never on a
// cluster-wide one (whose release fence had waited on each row's dx stores: the membar stalls of
// docs/notes/memory-bound-round3.md). A row is one round; with four buffers a CTA may send row
// i + 1's round before it receives row i's (5_fused_tma.cu's rows one ahead).
template <int kSlots, int kParts, int kBuffers = 2>
using ClusterSums = nb::dev::ClusterExchange<2, kSlots, kParts, kBuffers>;  // RowSums: two words

}  // namespace nb::rows_bwd
