#pragma once
// Ampere's asynchronous global -> shared copies (cp.async): a thread issues them without waiting,
// groups them with commit, and waits for all but the newest N groups; the copied bytes are then
// visible to the issuing thread (other threads need a barrier as well). Each call is a compiler
// memory barrier, so shared-memory reads stay between the wait that makes their data visible and
// the next copy into the same place. (tf32_mainloop.cuh keeps clobber-free copies of its own,
// ordered by its block barriers.)
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/primitives/shared_address.cuh"

namespace nb::dev {

// 16 bytes, both addresses 16-byte aligned; cg: cached in L2 only (the data is used once, from
// shared memory).
__device__ __forceinline__ void cp_async_16(void* dst, const void* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(shared_address(dst)), "l"(src) : "memory");
}
// 16 or 4 bytes of which the first src_bytes are copied and the rest zero-filled (src_bytes 0:
// nothing is read); 4-byte copies go through L1 (.ca), the only mode cp.async allows for them.
__device__ __forceinline__ void cp_async_16(void* dst, const void* src, int src_bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(shared_address(dst)), "l"(src), "r"(src_bytes)
               : "memory");
}
__device__ __forceinline__ void cp_async_4(void* dst, const void* src, int src_bytes) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(shared_address(dst)), "l"(src), "r"(src_bytes)
               : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

}  // namespace nb::dev
