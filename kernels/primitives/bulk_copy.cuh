#pragma once
// Hopper's one-dimensional bulk copies (cp.async.bulk, the TMA unit without a tensor map): one
// thread moves a contiguous run of bytes between global and shared memory. A load completes its
// bytes on an mbarrier of the destination CTA (mbarrier.cuh: announce them with
// mbarrier_arrive_expect_bytes, then wait on the phase); a store is tracked in bulk groups of the
// issuing thread. Addresses and sizes are multiples of 16 bytes. The row backward's `fused_tma`
// feeds its stages with the loads; the stream probe copies through shared memory with both.
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/primitives/shared_address.cuh"

namespace nb::dev {

// `bytes` from global `gmem` into this CTA's shared `smem`, completing on `bar` (this CTA's).
__device__ __forceinline__ void bulk_load(void* smem, const void* gmem, std::uint32_t bytes, std::uint64_t* bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(
                   shared_address(smem)),
               "l"(gmem), "r"(bytes), "r"(shared_address(bar))
               : "memory");
}

// `bytes` from shared `smem` to global `gmem`, as a bulk group of its own.
__device__ __forceinline__ void bulk_store(void* gmem, const void* smem, std::uint32_t bytes) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;\n" ::"l"(gmem), "r"(shared_address(smem)),
               "r"(bytes)
               : "memory");
  asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
}

// Waits until at most N of this thread's bulk stores still read shared memory.
template <int N>
__device__ __forceinline__ void bulk_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
}

// Waits until every bulk store of this thread is complete.
__device__ __forceinline__ void bulk_wait_all() { asm volatile("cp.async.bulk.wait_group 0;\n" ::: "memory"); }

}  // namespace nb::dev
