#pragma once
// The TMA-fed rows: a producer thread copies each CTA's part of the next rows into a ring of
// shared-memory stages (one bulk copy a row on the stage's mbarrier), and consumer warps of up to
// four 16-byte packs a thread read their packs into registers, where the row stays from the
// statistics to the write; a stage is freed once the row's first reduction holds every pack. The
// rows' bytes in flight take no registers and no issue slots. `Norm` is the op's row (rmsnorm_rows'
// 6_tma_row.cu; layernorm_rows' was measured and not kept: docs/notes/memory-bound-round3.md,
// "Eighteenth"):
//   Norm<T, VEC, PPT>::Tensors                 the kernel's tensors, x first
//   Norm(tensors, first, stride, mine)         per-thread constants (w's packs)
//   norm.row(tensors, g, row, x, mine, first, stride, reduce)     the row's statistics and y
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/primitives/bulk_copy.cuh"
#include "kernels/primitives/mbarrier.cuh"
#include "kernels/primitives/storage.cuh"
#include "kernels/rows/dealt_bands.hpp"
#include "kernels/rows/tma_rows/consumer_reducer.cuh"
#include "kernels/rows/tma_rows/plan.hpp"

namespace nb::rows::tma {

struct Geometry {
  long long rows, n, packs, packs_per_part, bands;
  int parts;
  float inv_n, eps;
};

// blockDim.x = consumers + 32: the last warp is the producer (its first thread copies). Each
// cluster walks a band of rows dealt over the bands (kernels/rows/dealt_bands.hpp: band b takes
// rows b, b + bands, ...), each of its CTAs over its part of them. Dynamic shared memory from
// its start, kStageAlign-byte aligned: kStages stages of the part's packs.
template <template <class, int, int> class Norm, class T>
__global__ void __launch_bounds__(kMaxConsumers + 32, 1)
    tma_rows(typename Norm<T, dev::kPack16<T>, kPacksPerThread>::Tensors t, Geometry g) {
  constexpr int VEC = dev::kPack16<T>, PPT = kPacksPerThread;
  using Row = Norm<T, VEC, PPT>;
  using Word = dev::PackWord<T, VEC>;
  __shared__ ConsumerScratch scratch;
  __shared__ Exchange exchange;
  // full[s]: stage s's bytes landed; empty[s]: every consumer warp holds its packs of it.
  __shared__ std::uint64_t full[kStages], empty[kStages];
  // Aligned by the declaration, not moved up at run time: every stage address a constant plus the
  // thread's offset (fused_tma's note on its stages).
  extern __shared__ __align__(kStageAlign) uint4 stages[];
  const int consumers = int(blockDim.x) - 32, tid = int(threadIdx.x);
  if (tid == 0) {
    for (int s = 0; s < kStages; ++s) {
      dev::mbarrier_init(&full[s], 1);
      dev::mbarrier_init(&empty[s], consumers / 32);
    }
    dev::fence_barrier_init();
  }
  __syncthreads();
  exchange.enter(g.parts);
  const long long band = blockIdx.x / g.parts, part = blockIdx.x % g.parts;
  const long long rows = band_rows(g.rows, band, g.bands);
  const auto row = [&](long long i) { return band_row(band, g.bands, i); };  // the band's row i
  const long long first_pack = part * g.packs_per_part;
  const int part_packs = int(first_pack + g.packs_per_part < g.packs ? g.packs_per_part : g.packs - first_pack);
  const auto stage = [&](int s) { return stages + std::size_t(s) * g.packs_per_part; };

  if (tid >= consumers) {
    if (tid == consumers) {  // row i goes into stage i % kStages once row i - kStages has left it
      const std::uint32_t bytes = std::uint32_t(part_packs) * 16u;
#pragma unroll 1
      for (long long i = 0; i < rows; ++i) {
        const int s = int(i % kStages);
        if (i >= kStages) dev::mbarrier_wait(&empty[s], unsigned((i / kStages - 1) & 1));
        dev::mbarrier_arrive_expect_bytes(&full[s], bytes);
        dev::bulk_load(stage(s), t.x + row(i) * g.n + first_pack * VEC, bytes, &full[s]);
      }
    }
    __syncwarp();
  } else {
    const int owned = part_packs - tid;  // pack tid + k * consumers of the part is mine if k * consumers < owned
    const auto mine = [&](int k) { return k * consumers < owned; };
    const long long first = (first_pack + tid) * VEC, stride = (long long)consumers * VEC;
    Row norm(t, first, stride, mine);
    ConsumerReducer reduce(scratch, exchange, g.parts, consumers);
#pragma unroll 1
    for (long long i = 0; i < rows; ++i) {
      const int s = int(i % kStages);
      dev::mbarrier_wait(&full[s], unsigned((i / kStages) & 1));
      const Word* packs = reinterpret_cast<const Word*>(stage(s));
      Word x[PPT];
#pragma unroll
      for (int k = 0; k < PPT; ++k) x[k] = mine(k) ? packs[tid + k * consumers] : Word{};
      reduce.free_after_next_reduction(&empty[s]);
      norm.row(t, g, row(i), x, mine, first, stride, reduce);
    }
  }
  __syncthreads();  // every copy landed and every stage read before the CTA may leave
  exchange.leave(g.parts);
}

}  // namespace nb::rows::tma
