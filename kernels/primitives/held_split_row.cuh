#pragma once
// A row of 2-byte values (bf16, fp16) of up to 128 KB in one block, split between the block's
// registers and its shared memory: each thread holds its first PACKS 16-byte packs as stored (two
// values a register) and copies its next PACKS by cp.async into its own column of shared-memory
// slots, so no barrier guards them. Each pass widens the held packs and reads the slots again.
// Thread t's pack k lies at pack k * lanes + t of the row.
#include <cuda_runtime.h>

#include "kernels/primitives/cp_async.cuh"
#include "kernels/primitives/storage.cuh"

namespace nb::dev {

// A 16-byte slot of shared memory read again at each call (volatile: never held in registers from
// one pass to the next, where the held packs leave no room for it).
__device__ __forceinline__ uint4 reread_shared_16(const void* slot) {
  uint4 r;
  asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
               : "r"(shared_address(slot)));
  return r;
}

template <class T, int PACKS>
struct HeldSplitRow {
  static constexpr int kVec = kPack16<T>;
  static_assert(sizeof(T) == 2, "held split rows are 2-byte values, two to a register");

  uint4* slots;  // PACKS x lanes slots (dynamic shared memory), slot k of thread t at k * lanes + t
  int lanes;     // the row's threads: blockDim.x
  int owned;     // the row's packs less threadIdx.x: pack k is this thread's when k * lanes < owned
  RowPacks<T, kVec, PACKS, true> held;  // zeros past the row's end

  __device__ bool mine(int k) const { return k * lanes < owned; }
  // Elements from the thread's first element of the row to its pack k.
  __device__ int offset(int k) const { return k * lanes * kVec; }
  __device__ uint4* slot(int k) const { return slots + k * lanes + threadIdx.x; }
  __device__ FloatPack<kVec> slot_pack(int k) const { return rewiden<T, kVec>(reread_shared_16(slot(k))); }

  // x: the thread's first element of the row. The slots' copies go first, then the held loads;
  // returns once both have landed. A copy into a slot never passes this thread's earlier read of
  // it (a previous row's): that read's value was used by the row's stores before this call.
  __device__ void load(const T* x) {
#pragma unroll
    for (int k = 0; k < PACKS; ++k)
      if (mine(PACKS + k)) cp_async_16(slot(k), x + offset(PACKS + k));
    cp_async_commit();
    held.load(x, static_cast<long long>(lanes) * kVec, [&](int k) { return mine(k); });
    cp_async_wait<0>();  // this thread's own slots: visible to it without a barrier
  }

  // f(pack) on every held pack (zeros past the row's end) and every slot of the thread's: for sums.
  template <class F>
  __device__ void each_pack(F f) const {
#pragma unroll
    for (int k = 0; k < PACKS; ++k) f(held[k]);
#pragma unroll 1  // unrolled, ptxas spills 136-212 bytes under the 64-register bound
    for (int k = 0; k < PACKS; ++k)
      if (mine(PACKS + k)) f(slot_pack(k));
  }

  // f(pack, k) on every pack k < 2 * PACKS of the thread's, the held ones first: for maxima and
  // for the row's stores (offset(k) from the thread's first element).
  template <class F>
  __device__ void each_mine(F f) const {
#pragma unroll
    for (int k = 0; k < PACKS; ++k)
      if (mine(k)) f(held[k], k);
#pragma unroll 1
    for (int k = 0; k < PACKS; ++k)
      if (mine(PACKS + k)) f(slot_pack(k), PACKS + k);
  }
};

}  // namespace nb::dev
