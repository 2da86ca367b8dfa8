#pragma once
// mbarriers (64-bit, in shared memory; sm_90): init, arrivals that announce transaction bytes, the
// parity wait, and a peer CTA's shared address for the cluster pushes of cluster_exchange.cuh. The
// Hopper GEMM's TMA pipeline and the row kernels' cluster reductions use them.
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/primitives/shared_address.cuh"

namespace nb::dev {

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

// Waits until the phase of parity `parity` has completed. Each try may suspend the warp until the
// phase completes or the hint's 10 ms pass (CUTLASS's figure) instead of spinning. A wait that lasts
// ~100 s of SM clock (2e11 cycles) traps: a pipeline that lost an arrival fails its launch with an
// error instead of hanging the process (and a test run) for good. The SM clock runs on while other
// contexts hold the GPU: under compute-sanitizer, sixteen racecheck processes side by side, a
// cluster's waits on a crawling peer passed the first limit's 10 s (unspecified launch failures,
// docs/sanitizers.md); one process alone ran clean. The clock is read once every 64 tries, not every
// try, where its read and 64-bit compare sat in every waiting warp's loop. (Against the plain spin,
// every user measured level on the H200: docs/notes/memory-bound-round3.md, "Thirtieth".)
__device__ inline void mbarrier_wait(std::uint64_t* bar, std::uint32_t parity) {
  constexpr long long kGiveUpCycles = 200'000'000'000LL;
  constexpr std::uint32_t kSuspendHintNs = 10'000'000, kTriesPerClockRead = 64;
  long long start = 0;
  for (std::uint32_t tries = 1;; ++tries) {
    std::uint32_t done = 0;
    asm volatile(
        "{\n"
        ".reg .pred complete;\n"
        "mbarrier.try_wait.parity.shared::cta.b64 complete, [%1], %2, %3;\n"
        "selp.u32 %0, 1, 0, complete;\n"
        "}\n"
        : "=r"(done)
        : "r"(shared_address(bar)), "r"(parity), "r"(kSuspendHintNs)
        : "memory");
    if (done) return;
    if (tries % kTriesPerClockRead != 0) continue;
    const long long now = clock64();
    if (start == 0) {
      start = now;
    } else if (now - start > kGiveUpCycles) {
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

}  // namespace nb::dev
