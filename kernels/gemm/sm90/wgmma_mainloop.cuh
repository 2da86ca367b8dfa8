#pragma once
// The Hopper GEMM's mainloop, shared by its two grids (a CTA per tile, wgmma_gemm.cuh; a
// persistent CTA per SM, wgmma_persistent.cuh): one producer thread streams 128-row tiles of A and
// 256-row tiles of B, 128 bytes of K deep, by TMA into a 4-stage shared-memory ring guarded by
// mbarriers; two consumer warpgroups each multiply 64 rows of the tile with wgmma. Both roles
// count the k blocks they have passed through the ring (`it`), across tiles, so a persistent CTA
// keeps streaming from one tile into the next. Included only by files built for sm_90a.
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernels/gemm/operands.hpp"
#include "kernels/gemm/sm90/sm90_ptx.cuh"
#include "kernels/gemm/sm90/tensor_map.hpp"
#include "kernels/gemm/sm90/wgmma_gemm.hpp"
#include "kernels/gemm/sm90/wgmma_inputs.cuh"
#include "kernels/primitives/shared_align.cuh"

namespace nb::gemm::sm90 {

struct WgmmaTile {
  static constexpr int kBM = kWgmmaTileM, kBN = kWgmmaTileN, kStages = 4;
  static constexpr int kConsumers = 2;                   // warpgroups of 64 rows each
  static constexpr int kThreads = 128 * (1 + kConsumers);
  static constexpr int kMmasPerStage = kSwizzleBytes / kBytesPerMma;
  static constexpr int kABytes = kBM * kSwizzleBytes, kBBytes = kBN * kSwizzleBytes;
  static constexpr int kStageBytes = kABytes + kBBytes;
  static constexpr int kRingBytes = kStages * kStageBytes;
  static constexpr int kBarrierBytes = 2 * kStages * 8;
};

// The TMA maps of a GEMM's operands, A in tiles of kBM rows and B in tiles of kBN, as both grids
// take them (throws std::runtime_error when the driver refuses one).
struct OperandMaps {
  CUtensorMap a, b;
};
template <class Inputs>
OperandMaps operand_maps(const OperandsOf<typename Inputs::Element>& op) {
  return {k_major_tensor_map(op.a, Inputs::kTma, op.m, op.k, WgmmaTile::kBM),
          k_major_tensor_map(op.b, Inputs::kTma, op.n, op.k, WgmmaTile::kBN)};
}

// The ring in dynamic shared memory: slack to align it to 1024 bytes (the swizzle atom), the
// stages, the barriers, then whatever the epilogue needs (`after_barriers`).
struct WgmmaRing {
  unsigned char* base;
  std::uint64_t* full;   // a stage's loads landed
  std::uint64_t* empty;  // both consumers are done with a stage

  __device__ static WgmmaRing in(unsigned char* raw) {
    WgmmaRing r;
    r.base = nb::dev::align_shared_up<1024>(raw);
    r.full = reinterpret_cast<std::uint64_t*>(r.base + WgmmaTile::kRingBytes);
    r.empty = r.full + WgmmaTile::kStages;
    return r;
  }
  __device__ unsigned char* a_stage(int s) const { return base + s * WgmmaTile::kStageBytes; }
  __device__ unsigned char* b_stage(int s) const { return a_stage(s) + WgmmaTile::kABytes; }
  __device__ unsigned char* after_barriers() const { return base + WgmmaTile::kRingBytes + WgmmaTile::kBarrierBytes; }

  // One thread, before a __syncthreads().
  __device__ void init() const {
    for (int s = 0; s < WgmmaTile::kStages; ++s) {
      mbarrier_init(&full[s], 1);
      mbarrier_init(&empty[s], WgmmaTile::kConsumers);
    }
    fence_barrier_init();
  }
};

constexpr std::size_t wgmma_ring_smem_bytes() {
  return 1024 + WgmmaTile::kRingBytes + WgmmaTile::kBarrierBytes;
}

template <class Inputs>
__device__ inline int wgmma_k_blocks(int k) {
  constexpr int kBK = box_k(Inputs::kTma);  // elements of K per stage
  return (k + kBK - 1) / kBK;
}

// The producer thread: the tile at (row0, col0)'s k blocks into the ring, each stage once both
// consumers have given it back.
template <class Inputs>
__device__ inline void produce_tile(const WgmmaRing& ring, const CUtensorMap* a_map, const CUtensorMap* b_map,
                                    int row0, int col0, int k_blocks, int& it) {
  using T = WgmmaTile;
  constexpr int kBK = box_k(Inputs::kTma);
  for (int kb = 0; kb < k_blocks; ++kb, ++it) {
    const int s = it % T::kStages;
    if (it >= T::kStages) mbarrier_wait(&ring.empty[s], ((it / T::kStages) - 1) & 1);
    mbarrier_arrive_expect_bytes(&ring.full[s], T::kStageBytes);
    tma_load_2d(ring.a_stage(s), a_map, kb * kBK, row0, &ring.full[s]);
    tma_load_2d(ring.b_stage(s), b_map, kb * kBK, col0, &ring.full[s]);
  }
}

// A consumer warpgroup: its 64 rows of one tile into `acc` (zeroed here), every stage given back.
// With kOverlap == one_group a stage goes back once the next stage's MMAs are issued, the last
// one when the tile's MMAs are all done.
template <class Inputs, MmaOverlap kOverlap>
__device__ inline void consume_tile(const WgmmaRing& ring, float (&acc)[128], int consumer, int k_blocks, int& it) {
  using T = WgmmaTile;
  for (float& v : acc) v = 0.0f;
  const bool leader = threadIdx.x % 128 == 0;
  for (int kb = 0; kb < k_blocks; ++kb, ++it) {
    const int s = it % T::kStages;
    mbarrier_wait(&ring.full[s], (it / T::kStages) & 1);
    wgmma_fence();
    const unsigned char* a_rows = ring.a_stage(s) + consumer * 64 * kSwizzleBytes;
    for (int step = 0; step < T::kMmasPerStage; ++step)
      Inputs::mma(acc, swizzled_k_major_descriptor(a_rows + step * kBytesPerMma),
                  swizzled_k_major_descriptor(ring.b_stage(s) + step * kBytesPerMma));
    wgmma_commit_group();
    if constexpr (kOverlap == MmaOverlap::one_group) {
      wgmma_wait_group<1>();  // the previous stage's MMAs are done: its buffers go back
      if (kb > 0 && leader) mbarrier_arrive(&ring.empty[(it - 1) % T::kStages]);
    } else {
      wgmma_wait_group<0>();
      if (leader) mbarrier_arrive(&ring.empty[s]);
    }
  }
  wgmma_wait_group<0>();
  if constexpr (kOverlap == MmaOverlap::one_group)
    if (leader) mbarrier_arrive(&ring.empty[(it - 1) % T::kStages]);
}

}  // namespace nb::gemm::sm90
