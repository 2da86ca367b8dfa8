#pragma once
// How the threads of one row combine their partial results in 4_register_row.cu and
// staged_rows.cu. Every thread of the row gets the result, and the same result, so decisions
// taken on it are uniform.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include "kernels/primitives/reduce.cuh"
#include "kernels/primitives/storage.cuh"
#include "kernels/rms/rms_math.cuh"

namespace nb::rows {

// blockDim.x lanes (a power of two <= 32) per row, blockDim.y rows per block: shuffles only.
struct LaneGroupReducer {
  __device__ LaneGroupReducer(float*, float*, int) {}
  __device__ float sum(float v) { return dev::row_group_sum(v); }
  __device__ float max(float v) {
    for (int offset = blockDim.x >> 1; offset > 0; offset >>= 1) v = fmaxf(v, __shfl_xor_sync(dev::kFullMask, v, offset));
    return v;
  }
  // Lane groups of one warp may disagree: the whole warp takes the branch if any of them wants it.
  __device__ bool any(bool p) const { return __any_sync(dev::kFullMask, p); }
  __device__ void finish() const {}
};

// One row per block, or per cluster of `parts` blocks that exchange their block results through
// distributed shared memory: each block publishes its result in its own shared memory, one
// cluster barrier, and every block reads all of them in rank order. Exchanges alternate between
// two slots, so one barrier per exchange suffices: exchange k + 2 rewrites slot k % 2 only after
// the barrier of exchange k + 1, which no block reaches before it has read exchange k. finish()
// keeps each block resident until its peers have read its last slot. blockDim.x is a multiple of 32.
struct ClusterReducer {
  float* scratch;  // 32 floats of shared memory
  float* slots;    // 2 floats of shared memory, read by the other blocks of the cluster
  int parts;
  int parity = 0;  // the same sequence of exchanges in every thread of the cluster

  __device__ ClusterReducer(float* scratch_, float* slots_, int parts_) : scratch(scratch_), slots(slots_), parts(parts_) {}

  template <class Op>
  __device__ float reduce(float v, Op op) {
    v = dev::block_reduce(v, op, scratch);
    if (parts == 1) return v;
    namespace cg = cooperative_groups;
    cg::cluster_group cluster = cg::this_cluster();
    float* slot = slots + parity;
    parity ^= 1;
    if (threadIdx.x == 0) *slot = v;
    cluster.sync();
    float total = *cluster.map_shared_rank(slot, 0);  // the same order in every block: same result
    for (int rank = 1; rank < parts; ++rank) total = op(total, *cluster.map_shared_rank(slot, rank));
    return total;
  }
  __device__ float sum(float v) { return reduce(v, dev::SumOp{}); }
  __device__ float max(float v) { return reduce(v, dev::MaxOp{}); }
  // The row's total is the same in every thread and every block of the cluster already.
  __device__ bool any(bool p) const { return p; }
  __device__ void finish() const {
    if (parts > 1) cooperative_groups::this_cluster().sync();
  }
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
