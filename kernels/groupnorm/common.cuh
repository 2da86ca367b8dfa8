#pragma once
// GroupNorm device helpers shared by the variants: kernel arguments, per-thread statistics
// (fp32 sum / sum-of-squares, or Welford) merged across warps and blocks, and the normalization
// of a span of a group, one scale and shift per channel segment.
#include <cuda_runtime.h>

#include "harness/device_buffer.hpp"
#include "harness/problem.hpp"
#include "kernels/primitives/alignment.cuh"
#include "kernels/primitives/merge.cuh"
#include "kernels/primitives/reduce.cuh"
#include "kernels/primitives/saturated_variance.cuh"
#include "kernels/primitives/welford.cuh"
#include "kernels/groupnorm/spec.hpp"

namespace nb::groupnorm {

struct Args {
  const float* x;
  const float* gamma;
  const float* beta;
  float* y;
  long long group_elems;  // (C/G)*H*W, < 2^31 (checked by the spec)
  long long groups;       // N*G
  int g, cpg, hw;
  float eps;
};

inline Args make_args(const Problem& p, const DeviceTensors& t) {
  const Shape s = shape_of(p);
  return {t.in(kX), t.in(kGamma), t.in(kBeta), t.out(kY), s.group_elements(), s.groups(),
          int(s.g), int(s.channels_per_group()), int(s.hw()), float(s.eps)};
}

// fp32 sum and sum of squares: cheap, and wrong when the mean dwarfs the spread (offset data).
struct SumSquares {
  float count = 0.f, sum = 0.f, sq = 0.f;
  __device__ void add(float v) { count += 1.f, sum += v, sq = fmaf(v, v, sq); }
  __device__ void merge(const SumSquares& o) { count += o.count, sum += o.sum, sq += o.sq; }
};

__device__ inline SumSquares shfl_xor(const SumSquares& s, int offset) {
  SumSquares o;
  o.count = __shfl_xor_sync(dev::kFullMask, s.count, offset);
  o.sum = __shfl_xor_sync(dev::kFullMask, s.sum, offset);
  o.sq = __shfl_xor_sync(dev::kFullMask, s.sq, offset);
  return o;
}

__device__ inline float mean_of(const SumSquares& s) { return s.sum / s.count; }
__device__ inline float mean_of(const dev::Welford& w) { return w.mean; }
// Negative variance from cancellation clamps to 0; a NaN stays NaN (fmaxf would hide it).
__device__ inline float variance_of(const SumSquares& s) {
  const float m = mean_of(s), v = s.sq / s.count - m * m;
  return v < 0.f ? 0.f : v;
}
__device__ inline float variance_of(const dev::Welford& w) { return w.variance_biased(); }
// 1 / sqrt(var + eps) of a group, its variance saturated where fp32 overflowed (wide data:
// kernels/primitives/saturated_variance.cuh), so y stays finite where the reference's is.
__device__ inline float invstd_of(float mean, float variance, float eps) {
  return 1.0f / sqrtf(dev::saturated_variance(mean, variance) + eps);
}

using dev::aligned16;
using dev::block_merge;

// Adds src[0, n) to s; threads [tid, nthreads) stride over it, in float4 when aligned.
template <class S>
__device__ void accumulate(S& s, const float* src, long long n, int tid, int nthreads) {
  long long done = 0;
  if (aligned16(src, src)) {
    const float4* v = reinterpret_cast<const float4*>(src);
    for (long long i = tid; i < n / 4; i += nthreads) {
      const float4 q = v[i];
      s.add(q.x), s.add(q.y), s.add(q.z), s.add(q.w);
    }
    done = n / 4 * 4;
  }
  for (long long i = done + tid; i < n; i += nthreads) s.add(src[i]);
}

// dst[i] = (src[i] - mean) * scale + shift for i in [0, n), float4 when both are aligned.
__device__ inline void affine_segment(const float* src, float* dst, long long n, float mean, float scale,
                                      float shift, int tid, int nthreads) {
  long long done = 0;
  if (aligned16(src, dst)) {
    const float4* v = reinterpret_cast<const float4*>(src);
    float4* out = reinterpret_cast<float4*>(dst);
    for (long long i = tid; i < n / 4; i += nthreads) {
      const float4 q = v[i];
      out[i] = make_float4((q.x - mean) * scale + shift, (q.y - mean) * scale + shift,
                           (q.z - mean) * scale + shift, (q.w - mean) * scale + shift);
    }
    done = n / 4 * 4;
  }
  for (long long i = done + tid; i < n; i += nthreads) dst[i] = (src[i] - mean) * scale + shift;
}

// Writes y for the group-relative elements [b, e) of group grp, reading x from src (src[0] is
// element b: global x or a shared-memory copy). One scale and shift per channel segment.
__device__ inline void normalize_span(const Args& a, long long grp, long long b, long long e, const float* src,
                                      float mean, float invstd, int tid, int nthreads) {
  float* dst = a.y + grp * a.group_elems + b;
  const int c0 = int(grp % a.g) * a.cpg;
  for (long long k = b / a.hw; k * a.hw < e; ++k) {
    const long long s0 = k * a.hw > b ? k * a.hw : b, s1 = (k + 1) * a.hw < e ? (k + 1) * a.hw : e;
    const float scale = invstd * a.gamma[c0 + k];
    affine_segment(src + (s0 - b), dst + (s0 - b), s1 - s0, mean, scale, a.beta[c0 + k], tid, nthreads);
  }
}

}  // namespace nb::groupnorm
