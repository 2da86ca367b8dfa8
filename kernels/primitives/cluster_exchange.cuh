#pragma once
// A thread-block cluster's exchange of one value per CTA (per row slot), with no cluster-wide
// barrier a row: each CTA pushes its value into every CTA's shared memory with st.async, whose
// bytes complete on the receiving CTA's own mbarrier, and a CTA waits only on its own barrier.
// A cluster barrier's release fence waits on the thread's earlier global stores: the membar
// stalls of docs/notes/memory-bound-round3.md. The row kernels' cluster reductions use it.
//
// Exchanges go in rounds, numbered alike in every CTA, on kBuffers buffers used in turn. With two,
// each round received before the next is sent: a CTA pushes round r + 2 into a peer's buffer only
// after that peer's push of round r + 1 reached it. So the caller must pass a CTA barrier
// (__syncthreads, as a block reduction has) between reading round r's values and pushing round
// r + 1; then the peer has read round r before anyone rewrites it. With four, a CTA may send one
// round ahead of the last it received (send r + 1, then receive r): when it pushes round r + 4 it
// has received round r + 2, so each peer has sent r + 2, which it did after receiving every round
// up to r and passing the barrier that follows their reads (the same barrier rule).
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "kernels/primitives/mbarrier.cuh"

namespace nb::dev {

// Stores v at `remote` (a cluster_address, 16-byte aligned) and completes sizeof(V) bytes on the
// barrier at `remote_bar` (in the same CTA as `remote`): one st.async of 4, 8 or 16 bytes, or one
// of 4 bytes a word for other sizes.
template <class V>
__device__ __forceinline__ void push_value(std::uint32_t remote, const V& v, std::uint32_t remote_bar) {
  static_assert(std::is_trivially_copyable_v<V> && sizeof(V) % 4 == 0, "a pushed value is whole 32-bit words");
  std::uint32_t w[sizeof(V) / 4];
  memcpy(w, &v, sizeof(V));
  if constexpr (sizeof(V) == 8) {
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.b32 [%0], {%1, %2}, [%3];\n" ::"r"(remote),
                 "r"(w[0]), "r"(w[1]), "r"(remote_bar)
                 : "memory");
  } else if constexpr (sizeof(V) == 16) {
    asm volatile(
        "st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b32 [%0], {%1, %2, %3, %4}, [%5];\n" ::"r"(remote),
        "r"(w[0]), "r"(w[1]), "r"(w[2]), "r"(w[3]), "r"(remote_bar)
        : "memory");
  } else {
#pragma unroll
    for (unsigned k = 0; k < sizeof(V) / 4; ++k)
      asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%0], %1, [%2];\n" ::"r"(remote + 4 * k),
                   "r"(w[k]), "r"(remote_bar)
                   : "memory");
  }
}

// The xor shuffles receive_by_lanes takes for floats, float2s and float3s (a full warp).
__device__ __forceinline__ float shfl_xor(float v, int offset) { return __shfl_xor_sync(0xffffffffu, v, offset); }
__device__ __forceinline__ float2 shfl_xor(const float2& v, int offset) {
  return make_float2(shfl_xor(v.x, offset), shfl_xor(v.y, offset));
}
__device__ __forceinline__ float3 shfl_xor(const float3& v, int offset) {
  return make_float3(shfl_xor(v.x, offset), shfl_xor(v.y, offset), shfl_xor(v.z, offset));
}

// In shared memory, one per CTA: values of up to kWords 32-bit words, of any type from round to
// round (every CTA of the cluster sends the same type in a round). Slot s is row slot
// threadIdx.y == s (blockDim.y slots); its threads threadIdx.x < ranks push (so a slot has at
// least `ranks` threads).
template <int kWords, int kSlots, int kMaxRanks, int kBuffers = 2>
struct ClusterExchange {
  static_assert(kBuffers == 2 || kBuffers == 4, "two buffers, or four for a round sent ahead");
  static constexpr int kWordsPerValue = kWords;
  alignas(16) std::uint32_t words[kBuffers][kSlots][kMaxRanks][kWords];  // [buffer][slot][sending rank]
  std::uint64_t arrived[kBuffers];

  // Once, by every thread of the CTA before any round: each barrier takes one arrival a phase (its
  // CTA's own, announcing the bytes), initialised where every CTA of the cluster sees it.
  __device__ void enter(int ranks) {
    if (ranks == 1) return;
    if (threadIdx.x == 0 && threadIdx.y == 0) {
#pragma unroll
      for (int b = 0; b < kBuffers; ++b) mbarrier_init(&arrived[b], 1);
      fence_barrier_init();
    }
    cooperative_groups::this_cluster().sync();
  }

  // Every thread of the CTA, its slot's value `mine` the same in each of the slot's threads.
  template <class V>
  __device__ void send(const V& mine, unsigned round, int ranks) {
    static_assert(sizeof(V) <= 4 * kWords, "the value is larger than the exchange's words");
    static_assert((sizeof(V) != 8 || kWords % 2 == 0) && (sizeof(V) != 16 || kWords % 4 == 0),
                  "a vector push needs its value aligned to its size");
    const unsigned buffer = round % kBuffers;
    if (threadIdx.x == 0 && threadIdx.y == 0)
      mbarrier_arrive_expect_bytes(&arrived[buffer], unsigned(ranks) * blockDim.y * unsigned(sizeof(V)));
    if (threadIdx.x < unsigned(ranks)) {  // thread r of the slot pushes to rank r
      const unsigned me = cooperative_groups::this_cluster().block_rank(), to = threadIdx.x;
      push_value(cluster_address(words[buffer][threadIdx.y][me], to), mine, cluster_address(&arrived[buffer], to));
    }
  }

  // Waits for every rank's value of the round and folds them in rank order, merge(acc, next), so
  // every CTA of the cluster gets the same bits.
  template <class V, class Merge>
  __device__ V receive(unsigned round, int ranks, Merge merge) {
    const unsigned buffer = arrived_buffer(round);
    const auto value_of = [&](int rank) {
      V v;
      memcpy(&v, words[buffer][threadIdx.y][rank], sizeof(V));
      return v;
    };
    V total = value_of(0);
#pragma unroll 1
    for (int rank = 1; rank < ranks; ++rank) merge(total, value_of(rank));
    return total;
  }

  // The same total, from a warp whose every lane calls it, for `ranks` a power of two: lane l reads
  // rank l % ranks's value and each group of `ranks` lanes folds them pairwise (xor shuffles,
  // log2(ranks) steps), so no read waits on a merge. Read one by one (receive), each load waited on
  // the last merge: at 16 ranks that chain held a fifth of the row backward's stall samples
  // (docs/notes/memory-bound-round3.md). For merges whose result does not depend on the order of
  // their two arguments (sums, maxima): then every lane of every CTA gets the same bits. V needs
  // shfl_xor(V, int): the float and float3 ones above, or one found by argument-dependent lookup.
  template <class V, class Merge>
  __device__ V receive_by_lanes(unsigned round, int ranks, Merge merge) {
    const unsigned buffer = arrived_buffer(round);
    V total;
    memcpy(&total, words[buffer][threadIdx.y][threadIdx.x & unsigned(ranks - 1)], sizeof(V));
    for (int offset = 1; offset < ranks; offset <<= 1) merge(total, shfl_xor(total, offset));
    return total;
  }

  // No CTA exits while a peer's push of the last round may still be on its way to it.
  __device__ void leave(int ranks) const {
    if (ranks > 1) cooperative_groups::this_cluster().sync();
  }

 private:
  // The round's buffer, once every rank's value has landed in it.
  __device__ unsigned arrived_buffer(unsigned round) {
    const unsigned buffer = round % kBuffers;
    mbarrier_wait(&arrived[buffer], (round / kBuffers) & 1);
    return buffer;
  }
};

}  // namespace nb::dev
