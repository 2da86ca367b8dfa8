#pragma once
// Softmax device helpers shared by the variants: arguments, the online (max, sum) pair of
// Milakov & Gimelshein (2018) with its merge across threads, warps and blocks, and the final
// write y = exp(x - max) * (1 / sum), in float4 when aligned.
#include <cuda_runtime.h>

#include <cfloat>

#include "harness/device_buffer.hpp"
#include "harness/problem.hpp"
#include "kernels/common/alignment.cuh"
#include "kernels/common/merge.cuh"
#include "kernels/common/reduce.cuh"
#include "kernels/softmax/spec.hpp"

namespace nb::softmax {

using dev::aligned16;
using dev::block_merge;
using dev::warp_merge;

struct Args {
  const float* x;
  float* y;
  long long m, n;
};

inline Args make_args(const Problem& p, const DeviceTensors& t) {
  const Shape s = shape_of(p);
  return {t.in(kX), t.out(kY), s.m, s.n};
}

// Running max and the sum of exp(x - max). NaN and +Inf surface as a NaN sum, as in IEEE double.
struct MaxSum {
  float m = -FLT_MAX, s = 0.f;

  __device__ void add(float x) {
    if (x > m) {
      s = s * expf(m - x) + expf(x - x);  // expf(x - x): 1, or NaN when x = +Inf (Inf - Inf)
      m = x;
    } else {
      s += expf(x - m);
    }
  }
  __device__ void merge(const MaxSum& o) {
    const float mm = fmaxf(m, o.m);
    s = s * expf(m - mm) + o.s * expf(o.m - mm);
    m = mm;
  }
};

__device__ inline MaxSum shfl_xor(const MaxSum& v, int offset) {
  return {__shfl_xor_sync(dev::kFullMask, v.m, offset), __shfl_xor_sync(dev::kFullMask, v.s, offset)};
}


// One pass over src[0, n): this thread's running (max, sum), float4 when aligned.
__device__ inline MaxSum online_accumulate(const float* src, long long n, int tid, int nthreads) {
  MaxSum v;
  long long done = 0;
  if (aligned16(src, src)) {
    const float4* s4 = reinterpret_cast<const float4*>(src);
    for (long long i = tid; i < n / 4; i += nthreads) {
      const float4 q = s4[i];
      v.add(q.x), v.add(q.y), v.add(q.z), v.add(q.w);
    }
    done = n / 4 * 4;
  }
  for (long long i = done + tid; i < n; i += nthreads) v.add(src[i]);
  return v;
}

// dst[i] = exp(src[i] - max) * inv_sum over [0, n); src may be global x or a shared-memory copy.
__device__ inline void write_softmax(const float* src, float* dst, long long n, float max, float inv_sum, int tid,
                                     int nthreads) {
  long long done = 0;
  if (aligned16(src, dst)) {
    const float4* s4 = reinterpret_cast<const float4*>(src);
    float4* d4 = reinterpret_cast<float4*>(dst);
    for (long long i = tid; i < n / 4; i += nthreads) {
      const float4 q = s4[i];
      d4[i] = make_float4(expf(q.x - max) * inv_sum, expf(q.y - max) * inv_sum, expf(q.z - max) * inv_sum,
                          expf(q.w - max) * inv_sum);
    }
    done = n / 4 * 4;
  }
  for (long long i = done + tid; i < n; i += nthreads) dst[i] = expf(src[i] - max) * inv_sum;
}

// Threads for a block that owns `n` elements: about 16 per thread, 64..max_threads.
inline int threads_for(long long n, int max_threads) {
  long long t = (n / 16 + 31) / 32 * 32;
  return int(t < 64 ? 64 : t > max_threads ? max_threads : t);
}

}  // namespace nb::softmax
