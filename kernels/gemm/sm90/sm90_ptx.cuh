#pragma once
// The sm_90a instructions the Hopper GEMM is built from, one inline-PTX wrapper each: the mbarriers
// of kernels/primitives/mbarrier.cuh, TMA tile loads, warpgroup MMA fences and
// groups, and the shared-memory matrix descriptor wgmma reads its operands through. Only code
// compiled for sm_90a may call them (kernels/gemm/sm90/ is built for that architecture alone).
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/primitives/mbarrier.cuh"

namespace nb::gemm::sm90 {

using nb::dev::fence_barrier_init;
using nb::dev::cluster_address;
using nb::dev::mbarrier_arrive;
using nb::dev::mbarrier_arrive_expect_bytes;
using nb::dev::mbarrier_init;
using nb::dev::mbarrier_wait;
using nb::dev::shared_address;

// --- TMA ---

// A box of a 2-d tensor (coordinates innermost first) into shared memory; its bytes complete on
// `bar`'s transaction count.
__device__ inline void tma_load_2d(void* dst, const CUtensorMap* map, int inner, int outer, std::uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3}], [%4];\n"
      :
      : "r"(shared_address(dst)), "l"(reinterpret_cast<std::uint64_t>(map)), "r"(inner), "r"(outer),
        "r"(shared_address(bar))
      : "memory");
}

// The same box into the same offset of the shared memory of every CTA of the cluster in
// `cta_mask` (bit r: rank r), each copy completing its bytes on the barrier at `bar`'s offset in
// that CTA.
__device__ inline void tma_load_2d_multicast(void* dst, const CUtensorMap* map, int inner, int outer,
                                             std::uint64_t* bar, std::uint16_t cta_mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%2, %3}], [%4], %5;\n"
      :
      : "r"(shared_address(dst)), "l"(reinterpret_cast<std::uint64_t>(map)), "r"(inner), "r"(outer),
        "r"(shared_address(bar)), "h"(cta_mask)
      : "memory");
}

// --- clusters ---

__device__ inline unsigned cluster_rank() {
  unsigned rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(rank));
  return rank;
}

// One arrival on the barrier at `remote_bar`, a shared::cluster address (cluster_address), with the
// instruction's default semantics (release at CTA scope), as CUTLASS's ClusterBarrier::arrive(cta_id)
// gives a stage back: what the arrival stands for, the stage's MMAs having read it, the caller's
// wgmma wait already ensures, so no cluster-scope fence is needed. The release at cluster scope this
// had compiled to a GPU-scope fence (MEMBAR.ALL.GPU, ERRBAR, CGAERRBAR) in the consumer's leader
// before each stage's arrival; the pairs' stall profile put 5.0% of its samples there and 4.9x the
// single form's on HGMMA (docs/notes/hopper-gemm.md, "The stall profile").
__device__ inline void mbarrier_arrive_remote(std::uint32_t remote_bar) {
  asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];\n" ::"r"(remote_bar) : "memory");
}

// Every thread of every CTA of the cluster (those still running) arrives, then waits for all.
__device__ inline void cluster_sync_all() {
  asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;\n" ::: "memory");
}

// --- registers between warpgroups ---

// Every thread of the warpgroup gives up registers down to kCount, or takes them up to kCount from
// what others gave up (a multiple of 8, 24..256); the whole warpgroup executes it.
template <int kCount>
__device__ inline void warpgroup_release_registers() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(kCount));
}
template <int kCount>
__device__ inline void warpgroup_claim_registers() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(kCount));
}

// --- warpgroup MMA ---

// Before the first wgmma of a batch: orders the accumulators' register writes before it.
__device__ inline void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ inline void wgmma_commit_group() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int kPending>
__device__ inline void wgmma_wait_group() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(kPending) : "memory");
}

// The descriptor of a K-major operand tile in shared memory laid out by TMA's 128-byte swizzle:
// rows of 128 bytes, 8-row (1024-byte) swizzle atoms one after another (stride 1024 bytes). The
// tile must start 1024-byte aligned; a step along K inside the 128 bytes adds to the address.
__device__ inline std::uint64_t swizzled_k_major_descriptor(const void* tile) {
  const std::uint64_t address = shared_address(tile);
  std::uint64_t desc = (address & 0x3FFFF) >> 4;   // bits 0-13: start address / 16
  desc |= std::uint64_t(16 >> 4) << 16;             // bits 16-29: leading byte offset (unused here)
  desc |= std::uint64_t(1024 >> 4) << 32;           // bits 32-45: stride byte offset, one swizzle atom
  desc |= std::uint64_t(1) << 62;                   // bits 62-63: 128-byte swizzle
  return desc;
}

}  // namespace nb::gemm::sm90
