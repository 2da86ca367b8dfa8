#pragma once
// Device pieces every BatchNorm kernel shares: where channel c's values live (NCHW), walking a
// channel slice with batched (optionally 16-byte) loads, the pivot-shifted Welford, and turning a
// channel's statistics into the saved mean/invstd and the running-stat update.
#include <cuda_runtime.h>

#include "kernels/batchnorm/args.hpp"
#include "kernels/primitives/reduce.cuh"
#include "kernels/primitives/saturated_variance.cuh"
#include "kernels/primitives/welford.cuh"

namespace nb::bn::dev {

using nb::dev::Welford;

// Unsigned division by a run-time constant with a multiply-high (numerators below 2^31).
struct FastDivmod {
  unsigned d = 1, m = 0, l = 0;
  FastDivmod() = default;
  __host__ explicit FastDivmod(unsigned divisor) : d(divisor) {
    while ((1ull << l) < d) ++l;
    m = unsigned(((1ull << 32) * ((1ull << l) - d)) / d + 1);
  }
  __device__ __forceinline__ unsigned div(unsigned n) const { return (__umulhi(n, m) + n) >> l; }
};

// Channel c of an NCHW tensor seen as vectors of VEC floats: vector j of the channel sits in
// run n = j / hwv at position s = j % hwv, i.e. at vector index (n*C + c)*hwv + s.
struct ChannelGeom {
  long long c_count;
  unsigned hwv;     // vectors per (n, c) run
  unsigned mv;      // vectors per channel: N * hwv
  unsigned slices;  // blocks (partial statistics) per channel
  FastDivmod by_hwv;
  unsigned pieces = 0;  // split plans in run order: blocks per (n, c) run; 0: one slice per block
  unsigned piece = 0;   // run order: vectors per block

  __device__ __forceinline__ long long offset(long long c, unsigned j) const {
    const unsigned n = by_hwv.div(j);
    return ((long long)n * c_count + c) * hwv + (j - n * hwv);
  }
  __device__ __forceinline__ unsigned begin(unsigned k) const {
    return unsigned((unsigned long long)k * mv / slices);
  }
};

__host__ inline ChannelGeom channel_geom(long long n, long long c, long long hw, int vec, unsigned slices) {
  const unsigned hwv = unsigned(hw / vec);
  return {c, hwv, unsigned(n) * hwv, slices, FastDivmod(hwv)};
}

template <int VEC> struct VecT;
template <> struct VecT<1> { using type = float; };
template <> struct VecT<4> { using type = float4; };

// STREAMING: the last use of the data, so evict-first in L2 (ld.global.cs / st.global.cs): what
// a kernel reads or writes once does not push out what it will read again.
template <int VEC, bool STREAMING = false>
__device__ __forceinline__ void load_vec(const float* p, long long i, float (&v)[VEC]) {
  const auto* q = reinterpret_cast<const typename VecT<VEC>::type*>(p) + i;
  typename VecT<VEC>::type t;
  if constexpr (STREAMING)
    t = __ldcs(q);
  else
    t = *q;
  const float* f = reinterpret_cast<const float*>(&t);
#pragma unroll
  for (int e = 0; e < VEC; ++e) v[e] = f[e];
}

template <int VEC, bool STREAMING = false>
__device__ __forceinline__ void store_vec(float* p, long long i, const float (&v)[VEC]) {
  typename VecT<VEC>::type t;
  float* f = reinterpret_cast<float*>(&t);
#pragma unroll
  for (int e = 0; e < VEC; ++e) f[e] = v[e];
  auto* q = reinterpret_cast<typename VecT<VEC>::type*>(p) + i;
  if constexpr (STREAMING)
    __stcs(q, t);
  else
    *q = t;
}

// The NT tensors' vectors at one position, loaded together.
template <int VEC, int NT> struct Loaded { float v[NT][VEC]; };

template <int VEC, int NT, bool STREAMING = false>
__device__ __forceinline__ Loaded<VEC, NT> load_all(const float* const (&src)[NT], long long i) {
  Loaded<VEC, NT> l;
#pragma unroll
  for (int t = 0; t < NT; ++t) load_vec<VEC, STREAMING>(src[t], i, l.v[t]);
  return l;
}

// Calls f(vector index, Loaded) for the vectors [j0, j1) of channel c taken by thread `t` of `T`,
// UNROLL positions loaded before any is used so that enough bytes are in flight.
template <int VEC, int NT, int UNROLL = 4, class F>
__device__ __forceinline__ void for_channel_range(const ChannelGeom& g, long long c, unsigned j0, unsigned j1,
                                                  unsigned t, unsigned T, const float* const (&src)[NT], F f) {
  unsigned j = j0 + t;
  for (; j + (UNROLL - 1) * T < j1; j += UNROLL * T) {
    long long off[UNROLL];
    Loaded<VEC, NT> l[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) off[u] = g.offset(c, j + u * T);
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) l[u] = load_all<VEC, NT>(src, off[u]);
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) f(off[u], l[u]);
  }
  for (; j < j1; j += T) {
    const long long off = g.offset(c, j);
    f(off, load_all<VEC, NT>(src, off));
  }
}

// Block-wide: slice k of channel c, one thread per block lane.
template <int VEC, int NT, class F>
__device__ __forceinline__ void for_block_slice(const ChannelGeom& g, long long c, unsigned k,
                                                const float* const (&src)[NT], F f) {
  for_channel_range<VEC, NT>(g, c, g.begin(k), g.begin(k + 1), threadIdx.x, blockDim.x, src, f);
}

// Welford on x - pivot, the pivot being one value of the channel: the shifted values are of the
// order of the spread, so the running mean carries no rounding of a large offset (1e4 + N(0,1)).
struct ShiftedWelford {
  float pivot;
  Welford w;
  __device__ __forceinline__ void add(float x) { w.add(x - pivot); }
  template <int VEC>
  __device__ __forceinline__ void add(const float (&v)[VEC]) {
#pragma unroll
    for (int e = 0; e < VEC; ++e) add(v[e]);
  }
  __device__ __forceinline__ float mean() const { return pivot + w.mean; }
};

// The channel's pivot: its first value (the same for every block of the channel).
__device__ __forceinline__ float channel_pivot(const float* x, long long c, long long hw) { return x[c * hw]; }

// Writes the saved statistics and updates the running ones; returns {mean, invstd}. Called by
// exactly one thread per channel.
__device__ __forceinline__ float2 commit_stats(const FwdArgs& a, long long c, float mean, float var) {
  var = nb::dev::saturated_variance(mean, var);
  const float invstd = 1.0f / sqrtf(var + a.eps);
  a.save_mean[c] = mean;
  a.save_invstd[c] = invstd;
  a.running_mean[c] = (1.0f - a.momentum) * a.running_mean[c] + a.momentum * mean;
  a.running_var[c] = (1.0f - a.momentum) * a.running_var[c] + a.momentum * var * a.unbias;
  return make_float2(mean, invstd);
}

// y = (x - mean) * invstd * gamma + beta with the per-channel factors folded once.
struct Affine {
  float mean, scale, beta;
  __device__ __forceinline__ Affine(const FwdArgs& a, long long c, float2 stats)
      : mean(stats.x), scale(stats.y * a.gamma[c]), beta(a.beta[c]) {}
  Affine() = default;
  __device__ __forceinline__ float operator()(float x) const { return fmaf(x - mean, scale, beta); }
  template <int VEC>
  __device__ __forceinline__ void apply(const float (&x)[VEC], float (&y)[VEC]) const {
#pragma unroll
    for (int e = 0; e < VEC; ++e) y[e] = (*this)(x[e]);
  }
};

// dx = gamma*invstd*(dy - mean(dy) - xhat*mean(dy*xhat)), folded per channel:
// dx = k*dy + b - (x - mean)*k2. sums = {sum(dy), sum(dy*(x - mean))}.
struct BwdAffine {
  float mean, k, b, k2;
  __device__ __forceinline__ BwdAffine(const BwdArgs& a, long long c, float2 sums, float count) {
    mean = a.save_mean[c];
    const float invstd = a.save_invstd[c];
    k = a.gamma[c] * invstd;
    b = -k * (sums.x / count);
    k2 = k * invstd * invstd * (sums.y / count);
  }
  BwdAffine() = default;
  __device__ __forceinline__ float operator()(float x, float dy) const { return fmaf(k, dy, b) - (x - mean) * k2; }
  template <int VEC>
  __device__ __forceinline__ void apply(const float (&x)[VEC], const float (&dy)[VEC], float (&dx)[VEC]) const {
#pragma unroll
    for (int e = 0; e < VEC; ++e) dx[e] = (*this)(x[e], dy[e]);
  }
};

// Backward per-thread partial sums {sum(dy), sum(dy*(x - mean))}.
template <int VEC>
__device__ __forceinline__ void add_bwd_sums(float2& s, float mean, const float (&x)[VEC], const float (&dy)[VEC]) {
#pragma unroll
  for (int e = 0; e < VEC; ++e) {
    s.x += dy[e];
    s.y = fmaf(dy[e], x[e] - mean, s.y);
  }
}

// The backward's channel results from its sums: dbeta = sum(dy), dgamma = sum(dy*xhat).
__device__ __forceinline__ void commit_bwd_sums(const BwdArgs& a, long long c, float2 sums) {
  a.dbeta[c] = sums.x;
  a.dgamma[c] = sums.y * a.save_invstd[c];
}

template <int VEC>
__device__ __forceinline__ void normalize_range(const FwdArgs& a, const ChannelGeom& g, long long c, unsigned j0,
                                                unsigned j1, unsigned t, unsigned T, const Affine& f) {
  const float* const src[1] = {a.x};
  for_channel_range<VEC, 1>(g, c, j0, j1, t, T, src, [&](long long off, const Loaded<VEC, 1>& l) {
    float y[VEC];
    f.apply<VEC>(l.v[0], y);
    store_vec<VEC>(a.y, off, y);
  });
}

// dx over the vectors [j0, j1) of channel c taken by thread t of T.
template <int VEC>
__device__ __forceinline__ void dx_range(const BwdArgs& a, const ChannelGeom& g, long long c, unsigned j0,
                                         unsigned j1, unsigned t, unsigned T, const BwdAffine& f) {
  const float* const src[2] = {a.x, a.dy};
  for_channel_range<VEC, 2>(g, c, j0, j1, t, T, src, [&](long long off, const Loaded<VEC, 2>& l) {
    float dx[VEC];
    f.apply<VEC>(l.v[0], l.v[1], dx);
    store_vec<VEC>(a.dx, off, dx);
  });
}

// Per-thread {sum(dy), sum(dy*(x - mean))} over the vectors [j0, j1) of channel c.
template <int VEC>
__device__ __forceinline__ float2 bwd_sums_range(const BwdArgs& a, const ChannelGeom& g, long long c, unsigned j0,
                                                 unsigned j1, unsigned t, unsigned T, float mean) {
  const float* const src[2] = {a.x, a.dy};
  float2 s = make_float2(0.0f, 0.0f);
  for_channel_range<VEC, 2>(g, c, j0, j1, t, T, src,
                            [&](long long, const Loaded<VEC, 2>& l) { add_bwd_sums<VEC>(s, mean, l.v[0], l.v[1]); });
  return s;
}

__device__ __forceinline__ float2 block_sum2(float2 v, float* scratch) {
  v.x = nb::dev::block_sum(v.x, scratch);
  v.y = nb::dev::block_sum(v.y, scratch);
  return v;
}

}  // namespace nb::bn::dev
