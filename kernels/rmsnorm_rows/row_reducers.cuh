#pragma once
// How the threads of one row combine their partial results in 4_register_row.cu. Every thread
// of the row gets the result, and the same result, so decisions taken on it are uniform.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include "kernels/common/reduce.cuh"
#include "kernels/rmsnorm_common/pack.cuh"
#include "kernels/rmsnorm_common/rms_math.cuh"

namespace nb::rmsnorm_rows {

// blockDim.x lanes (a power of two <= 32) per row, blockDim.y rows per block: shuffles only.
struct LaneGroupReducer {
  __device__ LaneGroupReducer(float*, float*, int) {}
  __device__ float sum(float v) const { return dev::row_group_sum(v); }
  __device__ float max(float v) const {
    for (int offset = blockDim.x >> 1; offset > 0; offset >>= 1) v = fmaxf(v, __shfl_xor_sync(dev::kFullMask, v, offset));
    return v;
  }
  // Lane groups of one warp may disagree: the whole warp takes the branch if any of them wants it.
  __device__ bool any(bool p) const { return __any_sync(dev::kFullMask, p); }
};

// One row per block, or per cluster of `parts` blocks that exchange their block results through
// distributed shared memory. blockDim.x is a multiple of 32.
struct BlockReducer {
  float* scratch;  // 32 floats of shared memory
  float* slot;     // this block's result, read by the other blocks of its cluster
  int parts;

  __device__ BlockReducer(float* scratch_, float* slot_, int parts_) : scratch(scratch_), slot(slot_), parts(parts_) {}

  template <class Op>
  __device__ float reduce(float v, Op op) const {
    v = dev::block_reduce(v, op, scratch);
    if (parts == 1) return v;
    namespace cg = cooperative_groups;
    cg::cluster_group cluster = cg::this_cluster();
    if (threadIdx.x == 0) *slot = v;
    cluster.sync();
    float total = *cluster.map_shared_rank(slot, 0);  // the same order in every block: same result
    for (int rank = 1; rank < parts; ++rank) total = op(total, *cluster.map_shared_rank(slot, rank));
    cluster.sync();  // every block has read every slot before one is rewritten or its block exits
    return total;
  }
  __device__ float sum(float v) const { return reduce(v, dev::SumOp{}); }
  __device__ float max(float v) const { return reduce(v, dev::MaxOp{}); }
  // The row's total is the same in every thread and every block of the cluster already.
  __device__ bool any(bool p) const { return p; }
};

// 1/sqrt(mean(x^2) + eps) of the row: each_pack(f) calls f on every pack this thread owns
// (zeros are harmless). When the sum of squares overflows, the packs are visited twice more to
// rescale by a power of two (rms_math.cuh).
template <int VEC, class EachPack, class Reducer>
__device__ __forceinline__ float row_inv_rms(EachPack each_pack, const Reducer& reduce, float inv_n, float eps) {
  float sq = 0.0f;
  each_pack([&](const rms::Pack<VEC>& a) {
#pragma unroll
    for (int i = 0; i < VEC; ++i) sq = fmaf(a.v[i], a.v[i], sq);
  });
  const float total = reduce.sum(sq);
  if (!reduce.any(rms::sum_overflowed(total))) return rms::inv_rms(total, inv_n, eps);

  float max_abs = 0.0f;
  each_pack([&](const rms::Pack<VEC>& a) {
#pragma unroll
    for (int i = 0; i < VEC; ++i) max_abs = fmaxf(max_abs, fabsf(a.v[i]));
  });
  const float scale = rms::pow2_scale_for(reduce.max(max_abs));
  sq = 0.0f;
  each_pack([&](const rms::Pack<VEC>& a) {
#pragma unroll
    for (int i = 0; i < VEC; ++i) {
      const float s = a.v[i] * scale;
      sq = fmaf(s, s, sq);
    }
  });
  return rms::scaled_inv_rms(reduce.sum(sq), inv_n, eps, scale);
}

}  // namespace nb::rmsnorm_rows
