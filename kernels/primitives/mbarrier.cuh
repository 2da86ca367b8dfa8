#pragma once
// mbarriers (64-bit, in shared memory; sm_90): init, arrivals that announce transaction bytes, the
// parity wait, and the cluster push built on them: st.async stores a value into a peer CTA's
// shared memory and counts its bytes on the peer's barrier, so a CTA that waits on its own
// barrier has every peer's value without a cluster-wide barrier (no release fence that would wait
// on the thread's earlier global stores and loads). The Hopper GEMM's TMA pipeline and the row
// backward's cluster sums use them.
#include <cuda_runtime.h>

#include <cstdint>

namespace nb::dev {

__device__ inline std::uint32_t shared_address(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

// --- mbarriers (64-bit, in shared memory) ---

__device__ inline void mbarrier_init(std::uint64_t* bar, int arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(shared_address(bar)), "r"(arrivals));
}

// Makes the initialised barriers visible to the async proxy (the TMA unit) and to other threads.
__device__ inline void fence_barrier_init() { asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory"); }

// One arrival that also announces `bytes` of transactions (TMA loads) the phase must see land.
__device__ inline void mbarrier_arrive_expect_bytes(std::uint64_t* bar, std::uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(shared_address(bar)), "r"(bytes)
               : "memory");
}

__device__ inline void mbarrier_arrive(std::uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(shared_address(bar)) : "memory");
}

// Waits until the phase of parity `parity` has completed. A wait that lasts ~10 s of SM clock
// traps: a pipeline that lost an arrival fails its launch with an error instead of hanging the
// process (and a test run) for good.
__device__ inline void mbarrier_wait(std::uint64_t* bar, std::uint32_t parity) {
  constexpr long long kGiveUpCycles = 20'000'000'000LL;
  long long start = 0;
  for (;;) {
    std::uint32_t done = 0;
    asm volatile(
        "{\n"
        ".reg .pred complete;\n"
        "mbarrier.try_wait.parity.shared::cta.b64 complete, [%1], %2;\n"
        "selp.u32 %0, 1, 0, complete;\n"
        "}\n"
        : "=r"(done)
        : "r"(shared_address(bar)), "r"(parity)
        : "memory");
    if (done) return;
    if (start == 0) {
      start = clock64();
    } else if (clock64() - start > kGiveUpCycles) {
      __trap();
    }
  }
}

// The shared::cluster address of `p`'s counterpart in the CTA of cluster rank `rank`.
__device__ inline std::uint32_t cluster_address(const void* p, unsigned rank) {
  std::uint32_t out;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(out) : "r"(shared_address(p)), "r"(rank));
  return out;
}

// Stores {a, b} at `remote` (a cluster_address) and completes 8 bytes on the barrier at
// `remote_bar` (the same CTA's).
__device__ inline void push_pair(std::uint32_t remote, float a, float b, std::uint32_t remote_bar) {
  asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.f32 [%0], {%1, %2}, [%3];\n" ::"r"(remote),
               "f"(a), "f"(b), "r"(remote_bar)
               : "memory");
}

}  // namespace nb::dev
