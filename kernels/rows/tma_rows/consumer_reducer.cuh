#pragma once
// The row reducer of the TMA-fed rows' consumer warps (kernel.cuh): rows::ClusterReducer's sum,
// max and any (row_reducers.cuh), so row_inv_rms runs on it, with the block's part of each
// reduction on a named barrier of the consumer warps alone (the producer warp keeps copying), two
// scratch rows used in turn so one barrier a reduction suffices, and the cluster's part on a
// ClusterExchange. It also frees a stage: the next reduction's lane 0 arrives
// on the stage's `empty` barrier after it stores its warp's value, which the shuffles made from
// every lane's packs, so every load of the stage has returned by then.
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/primitives/cluster_exchange.cuh"
#include "kernels/primitives/mbarrier.cuh"
#include "kernels/primitives/named_barrier.cuh"
#include "kernels/primitives/reduce.cuh"
#include "kernels/rows/tma_rows/plan.hpp"

namespace nb::rows::tma {

// A cluster's exchange of a block's result a row: a float.
using Exchange = dev::ClusterExchange<1, 1, kMaxParts>;

struct ConsumerScratch {
  float warp_values[2][kMaxConsumers / 32];
};

struct ConsumerReducer {
  static constexpr int kBarrier = 1;  // the named barrier of the consumer warps (0 is __syncthreads)
  ConsumerScratch& scratch;
  Exchange& exchange;
  int parts, consumers;
  unsigned round = 0, turn = 0;
  std::uint64_t* stage_to_free = nullptr;

  // The exchange is entered and left by every thread of the CTA (exchange.enter/leave) outside.
  __device__ ConsumerReducer(ConsumerScratch& s, Exchange& e, int parts_, int consumers_)
      : scratch(s), exchange(e), parts(parts_), consumers(consumers_) {}

  // The stage the thread's packs came from: freed by the next reduction's lane 0.
  __device__ void free_after_next_reduction(std::uint64_t* empty) { stage_to_free = empty; }

  // Over this CTA's consumer warps (no round). A warp writes a scratch row again two reductions
  // on, after every warp passed the barrier of the one between, so after every warp read it.
  template <class Op>
  __device__ float block_reduce(float v, Op op) {
    const int lane = int(threadIdx.x & 31), warp = int(threadIdx.x >> 5);
    v = dev::warp_reduce(v, op);
    float* const values = scratch.warp_values[turn++ & 1];
    if (lane == 0) {
      values[warp] = v;
      if (stage_to_free) dev::mbarrier_arrive(stage_to_free);
    }
    stage_to_free = nullptr;
    dev::named_barrier_sync(kBarrier, consumers);
    v = lane < consumers / 32 ? values[lane] : Op::identity();
    return dev::warp_reduce(v, op);
  }
  template <class Op>
  __device__ float reduce(float v, Op op) {
    v = block_reduce(v, op);
    if (parts == 1) return v;
    exchange.send(v, round, parts);
    return exchange.receive_by_lanes<float>(round++, parts,
                                            [op](float& total, float next) { total = op(total, next); });
  }
  __device__ float sum(float v) { return reduce(v, dev::SumOp{}); }
  __device__ float max(float v) { return reduce(v, dev::MaxOp{}); }
  __device__ bool any(bool p) const { return p; }  // the same in every consumer of the cluster already
};

}  // namespace nb::rows::tma
