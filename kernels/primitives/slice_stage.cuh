#pragma once
// Staging a CTA's slice of a row or group from global into shared memory while folding it
// (sum or max), with the first float4s of each thread optionally fetched ahead into registers:
// a persistent kernel issues them for its next slice while it waits at a barrier and writes out
// the current one, so DRAM keeps reading through what would otherwise be idle time.
#include <cuda_runtime.h>

#include "kernels/primitives/alignment.cuh"
#include "kernels/primitives/reduce.cuh"

namespace nb::dev {

// K float4 per thread of a 16-byte aligned slice, in registers (K a compile-time constant so that
// they stay in registers). `valid` is false when the slice is not aligned: staging then loads all.
template <int K>
struct SliceAhead {
  float4 q[K];
  bool valid = false;

  // Issues the loads of float4 number threadIdx.x + p*blockDim.x (p < K) of src[0, n).
  __device__ __forceinline__ void fetch(const float* src, long long n) {
    valid = aligned16(src);
    if (!valid) return;
    const float4* s4 = reinterpret_cast<const float4*>(src);
    const long long n4 = n / 4;
#pragma unroll
    for (int p = 0; p < K; ++p) {
      const long long i = threadIdx.x + (long long)p * blockDim.x;
      if (i < n4) q[p] = s4[i];
    }
  }
};

template <class Op>
__device__ __forceinline__ float fold4(float acc, float4 q, Op op) {
  return op(acc, op(op(q.x, q.y), op(q.z, q.w)));
}

// Copies src[0, n) into smem (16-byte aligned) and returns this thread's fold of op over what it
// copied. `ahead`, when valid, must hold src's first float4s as SliceAhead::fetch(src, n) left them.
template <int K, class Op>
__device__ __forceinline__ float stage_slice(const float* src, float* smem, long long n, const SliceAhead<K>& ahead,
                                             Op op) {
  float acc = Op::identity();
  long long done = 0;
  if (aligned16(src)) {
    const float4* s4 = reinterpret_cast<const float4*>(src);
    float4* d4 = reinterpret_cast<float4*>(smem);
    const long long n4 = n / 4;
    long long i = threadIdx.x;
    if (ahead.valid) {
#pragma unroll
      for (int p = 0; p < K; ++p, i += blockDim.x)
        if (i < n4) d4[i] = ahead.q[p], acc = fold4(acc, ahead.q[p], op);
    }
#pragma unroll 4
    for (; i < n4; i += blockDim.x) {
      const float4 q = s4[i];
      d4[i] = q;
      acc = fold4(acc, q, op);
    }
    done = n4 * 4;
  }
  for (long long i = done + threadIdx.x; i < n; i += blockDim.x) acc = op(acc, smem[i] = src[i]);
  return acc;
}

}  // namespace nb::dev
