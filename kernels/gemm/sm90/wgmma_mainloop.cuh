#pragma once
// The Hopper GEMM's mainloop, shared by its grids (a CTA per tile, wgmma_gemm.cuh; a persistent
// CTA per SM, wgmma_persistent.cuh, and its ping-pong form, wgmma_pingpong.cuh): one producer
// thread streams tiles of A and 256-row tiles of B, 128 bytes of K deep, by TMA into a
// shared-memory ring guarded by mbarriers; consumer warpgroups multiply 64 rows of a stage each
// with wgmma (two of them share each 128-row stage, or, in ping-pong, one takes each 64-row
// stage). Both roles count the k blocks they have passed through the ring (`it`), across tiles, so
// a persistent CTA keeps streaming from one tile into the next. Included only by files built for
// sm_90a.
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

// A ring's geometry: stages of kRowsA rows of A and kWgmmaTileN rows of B, 128 bytes of K deep,
// each read (and given back) by kReadersPerStage consumer warpgroups of 64 rows, and a CTA of a
// producer warpgroup and kConsumerGroups consumer warpgroups.
template <int kRowsA, int kStageCount, int kReadersPerStage, int kConsumerGroups>
struct WgmmaRingShape {
  static constexpr int kBM = kRowsA, kBN = kWgmmaTileN, kStages = kStageCount;
  static constexpr int kReaders = kReadersPerStage;
  static constexpr int kConsumers = kConsumerGroups;
  static constexpr int kThreads = 128 * (1 + kConsumers);
  static constexpr int kMmasPerStage = kSwizzleBytes / kBytesPerMma;
  static constexpr int kABytes = kBM * kSwizzleBytes, kBBytes = kBN * kSwizzleBytes;
  static constexpr int kStageBytes = kABytes + kBBytes;
  static constexpr int kRingBytes = kStages * kStageBytes;
  static constexpr int kBarrierBytes = 2 * kStages * 8;
  static_assert(kBM == 64 * kReaders, "each reader multiplies 64 rows of a stage's A");
  static_assert(kABytes % 1024 == 0 && kStageBytes % 1024 == 0, "stages start on the swizzle atom");
};

// The cooperative tile: 128 x 256, two consumer warpgroups of 64 rows sharing each of 4 stages
// (48 KB each).
using WgmmaTile = WgmmaRingShape<kWgmmaTileM, 4, 2, 2>;

// The TMA maps of a GEMM's operands, A in tiles of T::kBM rows and B in tiles of T::kBN, as the
// grids take them (throws std::runtime_error when the driver refuses one).
struct OperandMaps {
  CUtensorMap a, b;
};
template <class Inputs, class T = WgmmaTile>
OperandMaps operand_maps(const OperandsOf<typename Inputs::Element>& op) {
  return {k_major_tensor_map(op.a, Inputs::kTma, op.m, op.k, T::kBM),
          k_major_tensor_map(op.b, Inputs::kTma, op.n, op.k, T::kBN)};
}

// The ring in dynamic shared memory: slack to align it to 1024 bytes (the swizzle atom), the
// stages, the barriers, then whatever the epilogue needs (`after_barriers`).
template <class T>
struct WgmmaRingOf {
  unsigned char* base;
  std::uint64_t* full;   // a stage's loads landed
  std::uint64_t* empty;  // every reader of a stage is done with it

  __device__ static WgmmaRingOf in(unsigned char* raw) {
    WgmmaRingOf r;
    r.base = nb::dev::align_shared_up<1024>(raw);
    r.full = reinterpret_cast<std::uint64_t*>(r.base + T::kRingBytes);
    r.empty = r.full + T::kStages;
    return r;
  }
  __device__ unsigned char* a_stage(int s) const { return base + s * T::kStageBytes; }
  __device__ unsigned char* b_stage(int s) const { return a_stage(s) + T::kABytes; }
  __device__ unsigned char* after_barriers() const { return base + T::kRingBytes + T::kBarrierBytes; }

  // One thread, before a __syncthreads(): a stage is empty once `readers` arrivals have given it
  // back (its readers in this CTA, or in every CTA it is multicast to).
  __device__ void init(int readers = T::kReaders) const {
    for (int s = 0; s < T::kStages; ++s) {
      mbarrier_init(&full[s], 1);
      mbarrier_init(&empty[s], readers);
    }
    fence_barrier_init();
  }
};
using WgmmaRing = WgmmaRingOf<WgmmaTile>;

template <class T = WgmmaTile>
constexpr std::size_t wgmma_ring_smem_bytes() {
  return 1024 + T::kRingBytes + T::kBarrierBytes;
}

template <class Inputs>
__device__ inline int wgmma_k_blocks(int k) {
  constexpr int kBK = box_k(Inputs::kTma);  // elements of K per stage
  return (k + kBK - 1) / kBK;
}

// How a stage's bytes arrive: this CTA's loads of its A and B tiles (the default), or
// wgmma_pingpong.cuh's pair of CTAs, which multicast half of B each.
struct LoadWholeStage {
  template <class T>
  __device__ void operator()(const WgmmaRingOf<T>& ring, int s, const CUtensorMap* a_map, const CUtensorMap* b_map,
                             int k0, int row0, int col0) const {
    mbarrier_arrive_expect_bytes(&ring.full[s], T::kStageBytes);
    tma_load_2d(ring.a_stage(s), a_map, k0, row0, &ring.full[s]);
    tma_load_2d(ring.b_stage(s), b_map, k0, col0, &ring.full[s]);
  }
};

// The producer thread: the tile at (row0, col0)'s k blocks into the ring, each stage once its
// readers have given it back.
template <class Inputs, class T, class Load = LoadWholeStage>
__device__ inline void produce_tile(const WgmmaRingOf<T>& ring, const CUtensorMap* a_map, const CUtensorMap* b_map,
                                    int row0, int col0, int k_blocks, int& it, Load load = {}) {
  constexpr int kBK = box_k(Inputs::kTma);
  for (int kb = 0; kb < k_blocks; ++kb, ++it) {
    const int s = it % T::kStages;
    if (it >= T::kStages) mbarrier_wait(&ring.empty[s], ((it / T::kStages) - 1) & 1);
    load(ring, s, a_map, b_map, kb * kBK, row0, col0);
  }
}

// How a reader gives a stage back: an arrival on this CTA's barrier (the default), or, in
// wgmma_pingpong.cuh's pair of CTAs, on both CTAs' (either may multicast into the other's stage).
struct ReleaseOwnStage {
  template <class T>
  __device__ void operator()(const WgmmaRingOf<T>& ring, int s) const {
    mbarrier_arrive(&ring.empty[s]);
  }
};

// A consumer warpgroup: rows 64 `rows64`.. of each stage of one tile into `acc` (zeroed here),
// every stage given back. With kOverlap == one_group a stage goes back once the next stage's MMAs
// are issued, the last one when the tile's MMAs are all done.
template <class Inputs, MmaOverlap kOverlap, class T, class Release = ReleaseOwnStage>
__device__ inline void consume_tile(const WgmmaRingOf<T>& ring, float (&acc)[128], int rows64, int k_blocks,
                                    int& it, Release release = {}) {
  for (float& v : acc) v = 0.0f;
  const bool leader = threadIdx.x % 128 == 0;
  for (int kb = 0; kb < k_blocks; ++kb, ++it) {
    const int s = it % T::kStages;
    mbarrier_wait(&ring.full[s], (it / T::kStages) & 1);
    wgmma_fence();
    const unsigned char* a_rows = ring.a_stage(s) + rows64 * 64 * kSwizzleBytes;
    for (int step = 0; step < T::kMmasPerStage; ++step)
      Inputs::mma(acc, swizzled_k_major_descriptor(a_rows + step * kBytesPerMma),
                  swizzled_k_major_descriptor(ring.b_stage(s) + step * kBytesPerMma));
    wgmma_commit_group();
    if constexpr (kOverlap == MmaOverlap::one_group) {
      wgmma_wait_group<1>();  // the previous stage's MMAs are done: its buffers go back
      if (kb > 0 && leader) release(ring, (it - 1) % T::kStages);
    } else {
      wgmma_wait_group<0>();
      if (leader) release(ring, s);
    }
  }
  wgmma_wait_group<0>();
  if constexpr (kOverlap == MmaOverlap::one_group)
    if (leader) release(ring, (it - 1) % T::kStages);
}

}  // namespace nb::gemm::sm90
