#pragma once
// How the threads of one row combine their partial results in 4_register_row.cu and
// staged_rows.cu. Every thread of the row gets the result, and the same result, so decisions
// taken on it are uniform.
#include <cuda_runtime.h>

#include "kernels/primitives/cluster_exchange.cuh"
#include "kernels/primitives/reduce.cuh"
#include "kernels/primitives/storage.cuh"
#include "kernels/primitives/welford.cuh"
#include "kernels/rms/rms_math.cuh"
#include "kernels/rows/row_plan.hpp"

namespace nb::rows {

// The cluster exchange of a row's block results (at most kMaxParts blocks, one row slot): a float,
// LayerNorm's (count, mean, M2) or two sums, of three.
using RowExchange = dev::ClusterExchange<3, 1, kMaxParts>;

// blockDim.x lanes (a power of two <= 32) per row, blockDim.y rows per block: shuffles only.
struct LaneGroupReducer {
  static constexpr bool kClusters = false;  // never a cluster: no block_sum, merge_moments, clustered()
  __device__ LaneGroupReducer(float*, RowExchange&, int) {}
  __device__ float sum(float v) { return dev::row_group_sum(v); }
  __device__ float max(float v) {
    for (int offset = blockDim.x >> 1; offset > 0; offset >>= 1) v = fmaxf(v, __shfl_xor_sync(dev::kFullMask, v, offset));
    return v;
  }
  // Lane groups of one warp may disagree: the whole warp takes the branch if any of them wants it.
  __device__ bool any(bool p) const { return __any_sync(dev::kFullMask, p); }
  __device__ void finish() const {}
};

// One row per block (blockDim.x a multiple of 32): block reductions alone, none of a cluster's
// exchange state held in registers through the row.
struct BlockReducer {
  static constexpr bool kClusters = false;  // never a cluster: no block_sum, merge_moments, clustered()
  float* scratch;                           // 32 floats of shared memory
  __device__ BlockReducer(float* scratch_, RowExchange&, int) : scratch(scratch_) {}
  __device__ float sum(float v) { return dev::block_reduce(v, dev::SumOp{}, scratch); }
  __device__ float2 sum2(float2 v) { return dev::block_sum2(v, scratch); }
  __device__ float max(float v) { return dev::block_reduce(v, dev::MaxOp{}, scratch); }
  // The row's total is the same in every thread of the block already.
  __device__ bool any(bool p) const { return p; }
  __device__ void finish() const {}
};

// One row per block, or per cluster of `parts` blocks: each block's result goes to every block of
// the cluster through a RowExchange (st.async pushes onto each block's own mbarrier, no cluster
// barrier a row), and every block folds them: sums and maxima across a warp's lanes
// (receive_by_lanes: the same bits in every thread), the Welford merge in rank order. One round
// per reduction, the same sequence in every thread of the cluster; the block reduction's barriers
// come between one round's reads and the next round's pushes, as the exchange needs. finish() keeps
// each block resident until its peers' last pushes have landed. blockDim.x is a multiple of 32.
struct ClusterReducer {
  static constexpr bool kClusters = true;  // block_sum and merge_moments exist; clustered() may be true
  float* scratch;  // 32 floats of shared memory
  RowExchange& exchange;
  int parts;
  unsigned round = 0;

  __device__ ClusterReducer(float* scratch_, RowExchange& exchange_, int parts_)
      : scratch(scratch_), exchange(exchange_), parts(parts_) {
    exchange.enter(parts);
  }

  // Over this block alone (no round).
  __device__ float block_sum(float v) { return dev::block_reduce(v, dev::SumOp{}, scratch); }

  // This block's (count, mean, M2) merged with its peers' by Chan's formula, in rank order: a
  // row's mean and variance in one round. Called after a block reduction, as every round is.
  __device__ dev::Welford merge_moments(const dev::Welford& mine) {
    exchange.send(mine, round, parts);
    return exchange.receive<dev::Welford>(round++, parts, [](dev::Welford& total, const dev::Welford& next) {
      total.merge(next);
    });
  }

  template <class Op>
  __device__ float reduce(float v, Op op) {
    v = dev::block_reduce(v, op, scratch);
    if (parts == 1) return v;
    exchange.send(v, round, parts);
    return exchange.receive_by_lanes<float>(round++, parts,
                                            [op](float& total, float next) { total = op(total, next); });
  }
  __device__ float sum(float v) { return reduce(v, dev::SumOp{}); }
  __device__ float max(float v) { return reduce(v, dev::MaxOp{}); }
  // Two sums in one block reduction and one round (pushed as three words: the exchange's are not
  // aligned for an 8-byte push).
  __device__ float2 sum2(float2 v) {
    v = dev::block_sum2(v, scratch);
    if (parts == 1) return v;
    exchange.send(make_float3(v.x, v.y, 0.0f), round, parts);
    const float3 total =
        exchange.receive_by_lanes<float3>(round++, parts, [](float3& sum, const float3& next) {
          sum.x += next.x;
          sum.y += next.y;
        });
    return make_float2(total.x, total.y);
  }
  // The row's total is the same in every thread and every block of the cluster already.
  __device__ bool any(bool p) const { return p; }
  __device__ bool clustered() const { return parts > 1; }
  __device__ void finish() const { exchange.leave(parts); }
};

// 1/sqrt(mean(x^2) + eps) of the row: each_pack(f) calls f on every pack this thread owns, as
// fp32 values (zeros are harmless). When the sum of squares overflows, the packs are visited
// twice more to rescale by a power of two (rms_math.cuh).
template <int VEC, class EachPack, class Reducer>
__device__ __forceinline__ float row_inv_rms(EachPack each_pack, Reducer& reduce, float inv_n, float eps) {
  float sq = 0.0f;
  each_pack([&](const dev::FloatPack<VEC>& a) {
#pragma unroll
    for (int i = 0; i < VEC; ++i) sq = fmaf(a.v[i], a.v[i], sq);
  });
  const float total = reduce.sum(sq);
  if (!reduce.any(rms::sum_overflowed(total))) return rms::inv_rms(total, inv_n, eps);

  float max_abs = 0.0f;
  each_pack([&](const dev::FloatPack<VEC>& a) {
#pragma unroll
    for (int i = 0; i < VEC; ++i) max_abs = fmaxf(max_abs, fabsf(a.v[i]));
  });
  const float scale = rms::pow2_scale_for(reduce.max(max_abs));
  sq = 0.0f;
  each_pack([&](const dev::FloatPack<VEC>& a) {
#pragma unroll
    for (int i = 0; i < VEC; ++i) {
      const float s = a.v[i] * scale;
      sq = fmaf(s, s, sq);
    }
  });
  return rms::scaled_inv_rms(reduce.sum(sq), inv_n, eps, scale);
}

}  // namespace nb::rows
