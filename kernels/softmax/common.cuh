#pragma once
// Softmax device helpers shared by the variants: arguments in the storage type T (float, bf16 or
// fp16; the math is fp32 throughout), the online (max, sum) pair of Milakov & Gimelshein (2018)
// with its merge across threads, warps and blocks, and the final write y = exp(x - max) * (1 / sum),
// in packs of VEC elements: 16 bytes when every row allows it, narrower packs when it does not.
#include <cuda_runtime.h>

#include <cfloat>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "harness/device_buffer.hpp"
#include "harness/problem.hpp"
#include "kernels/primitives/merge.cuh"
#include "kernels/primitives/reduce.cuh"
#include "kernels/primitives/storage.cuh"
#include "kernels/softmax/launch_plan.hpp"
#include "kernels/softmax/spec.hpp"

namespace nb::softmax {

using dev::block_merge;
using dev::warp_merge;

template <class T>
struct Args {
  const T* x;
  T* y;
  long long m, n;
};

template <class T>
inline Args<T> make_args(const Problem& p, const DeviceTensors& t) {
  const Shape s = shape_of(p);
  return {t.ptr<const T>(kX), t.ptr<T>(kY), s.m, s.n};
}

// exp(x - mx) for a row stored in T. fp32 rows: expf. bf16 and fp16 rows, whose stored outputs
// round by 2^-9 and 2^-12 of their value: exp2 of (x - mx) * log2(e) by the SFU's ex2.approx
// (relative error about 2^-22, and the argument rounded once more: |x - mx| * 2^-24), a third of
// expf's instructions. Results below 2^-126 flush to zero: scaled by 1 / sum (<= 1) they would be
// bf16 subnormals, which no output of the suite reaches, or round to zero in fp16.
template <class T>
__device__ __forceinline__ float exp_shifted(float x, float mx) {
  if constexpr (sizeof(T) == 2) {
    float r;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"((x - mx) * 1.4426950408889634f));
    return r;
  } else {
    return expf(x - mx);
  }
}

// The widest pack every row of x and y starts on (launch_plan.hpp).
template <class T>
inline int pack_width(const Args<T>& a) {
  return row_pack_width(a.n, int(sizeof(T)), reinterpret_cast<std::uintptr_t>(a.x),
                        reinterpret_cast<std::uintptr_t>(a.y));
}

// Calls f(std::integral_constant<int, VEC>{}) with VEC = vec, one of T's pack widths (1 up to
// 16 bytes of elements), so that a launch instantiates its kernel per width.
template <class T, class F>
void dispatch_pack(int vec, F&& f) {
  using std::integral_constant;
  switch (vec) {
    case 1: return f(integral_constant<int, 1>{});
    case 2: return f(integral_constant<int, 2>{});
    case 4: return f(integral_constant<int, 4>{});
    case 8:
      if constexpr (dev::kPack16<T> >= 8) return f(integral_constant<int, 8>{});
      break;
  }
  throw std::logic_error("softmax: no pack of " + std::to_string(vec) + " elements of " +
                         std::to_string(sizeof(T)) + " bytes");
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

// One pass over src[0, n) in packs of VEC (n a multiple of VEC, src aligned to a pack): this
// thread's running (max, sum).
template <class T, int VEC>
__device__ inline MaxSum online_accumulate(const T* src, long long n, int tid, int nthreads) {
  MaxSum v;
  for (long long i = tid; i < n / VEC; i += nthreads) {
    const dev::FloatPack<VEC> q = dev::load_as_float<T, VEC>(src + i * VEC);
#pragma unroll
    for (int k = 0; k < VEC; ++k) v.add(q.v[k]);
  }
  return v;
}

// dst[i] = exp(src[i] - max) * inv_sum over [0, n) in packs of VEC (n a multiple of VEC, both
// pointers aligned to a pack).
template <class T, int VEC>
__device__ inline void write_softmax(const T* src, T* dst, long long n, float max, float inv_sum, int tid,
                                     int nthreads) {
  for (long long i = tid; i < n / VEC; i += nthreads) {
    dev::FloatPack<VEC> q = dev::load_as_float<T, VEC>(src + i * VEC);
#pragma unroll
    for (int k = 0; k < VEC; ++k) q.v[k] = expf(q.v[k] - max) * inv_sum;
    dev::store_from_float<T, VEC>(dst + i * VEC, q);
  }
}

// Threads for a block that owns `n` elements: about 16 per thread, 64..max_threads.
inline int threads_for(long long n, int max_threads) {
  long long t = (n / 16 + 31) / 32 * 32;
  return int(t < 64 ? 64 : t > max_threads ? max_threads : t);
}

}  // namespace nb::softmax
