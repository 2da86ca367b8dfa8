#pragma once
// Warp- and block-wide reductions shared by every op's kernels: butterfly shuffles inside a
// warp, one shared-memory slot per warp across the block. Every thread gets the result.
#include <cuda_runtime.h>

#include <cfloat>

namespace nb::dev {

inline constexpr unsigned kFullMask = 0xffffffffu;

struct SumOp {
  __device__ float operator()(float a, float b) const { return a + b; }
  static __device__ float identity() { return 0.0f; }
};
struct MaxOp {
  __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
  static __device__ float identity() { return -FLT_MAX; }
};
struct MinOp {
  __device__ float operator()(float a, float b) const { return fminf(a, b); }
  static __device__ float identity() { return FLT_MAX; }
};

// torch.min's minimum: a NaN wins (fminf would drop it), +Inf is the identity.
struct MinNanOp {
  __device__ float operator()(float a, float b) const { return (a != a || a < b) ? a : b; }
  static __device__ float identity() { return __int_as_float(0x7f800000); }
};

template <class Op>
__device__ __forceinline__ float warp_reduce(float v, Op op) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) v = op(v, __shfl_xor_sync(kFullMask, v, offset));
  return v;
}

// blockDim.x must be a multiple of 32 and at most 1024. `scratch` holds 32 floats in shared
// memory; it may be reused right after the call returns (the trailing barrier protects it).
template <class Op>
__device__ __forceinline__ float block_reduce(float v, Op op, float* scratch) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  v = warp_reduce(v, op);
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  v = lane < warps ? scratch[lane] : Op::identity();
  v = warp_reduce(v, op);
  __syncthreads();
  return v;
}

__device__ __forceinline__ float warp_sum(float v) { return warp_reduce(v, SumOp{}); }
__device__ __forceinline__ float block_sum(float v, float* scratch) { return block_reduce(v, SumOp{}, scratch); }
__device__ __forceinline__ float block_max(float v, float* scratch) { return block_reduce(v, MaxOp{}, scratch); }

// Two sums over a warp by xor butterflies: every lane gets the same bits.
__device__ __forceinline__ float2 warp_sum2(float2 t) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) {
    t.x += __shfl_xor_sync(kFullMask, t.x, offset);
    t.y += __shfl_xor_sync(kFullMask, t.y, offset);
  }
  return t;
}

// Two sums over the block behind one pair of barriers: block_reduce's steps with both values at
// each. `scratch` holds 32 floats: the pairs of up to 16 warps; a larger block takes two block sums.
// Every thread gets the same bits.
__device__ __forceinline__ float2 block_sum2(float2 v, float* scratch) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  if (warps > 16) return make_float2(block_sum(v.x, scratch), block_sum(v.y, scratch));
  v = warp_sum2(v);
  if (lane == 0) {
    scratch[2 * warp] = v.x;
    scratch[2 * warp + 1] = v.y;
  }
  __syncthreads();
  v = lane < warps ? make_float2(scratch[2 * lane], scratch[2 * lane + 1]) : make_float2(0.0f, 0.0f);
  v = warp_sum2(v);
  __syncthreads();
  return v;
}

// Sums over a 2D block (blockDim.x lanes per row of threads): reduces along x only, so each
// threadIdx.y row gets its own sum. blockDim.x must be a power of two <= 32.
__device__ __forceinline__ float row_group_sum(float v) {
  for (int offset = blockDim.x >> 1; offset > 0; offset >>= 1) v += __shfl_xor_sync(kFullMask, v, offset);
  return v;
}

inline constexpr long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

}  // namespace nb::dev
