#pragma once
// The kernel argument block of both row-layout backwards, and the per-element arithmetic every
// variant shares: xhat from the saved statistics, g = dy * w, and dx from the two row means.
// kLayer: LayerNorm (mean subtracted, db written); else RMSNorm (mean null, db null).
#include <cuda_runtime.h>

#include "harness/variant.hpp"
#include "kernels/primitives/storage.cuh"
#include "kernels/rows/rows_bwd/rows_bwd.hpp"

namespace nb::rows_bwd {

template <class T>
struct Args {
  const T* x;
  const T* w;
  const T* dy;
  const float* mean;  // null for RMSNorm
  const float* rstd;
  T* dx;
  T* dw;
  T* db;  // null for RMSNorm
  long long m, n;
};

template <class T>
Args<T> args_of(const Layout& layout, const Problem& p, const DeviceTensors& t) {
  const Shape s = Shape::of(p);
  return {t.ptr<const T>(layout.x),
          t.ptr<const T>(layout.w),
          t.ptr<const T>(layout.dy),
          layout.layer() ? t.ptr<const float>(layout.mean) : nullptr,
          t.ptr<const float>(layout.rstd),
          t.ptr<T>(layout.dx),
          t.ptr<T>(layout.dw),
          layout.layer() ? t.ptr<T>(layout.db) : nullptr,
          s.m,
          s.n};
}

namespace dev {

// A row's saved statistics (mean is 0 for RMSNorm).
struct RowStats {
  float mean, rstd;
};

template <bool kLayer, class T>
__device__ __forceinline__ RowStats row_stats(const Args<T>& a, long long row) {
  return {kLayer ? __ldg(a.mean + row) : 0.0f, __ldg(a.rstd + row)};
}

// (x - mean) * rstd: the subtraction first, as PyTorch does; it is exact where x is near the mean,
// so `offset` rows (1e4 + N(0,1)) keep their spread. (x * rstd - mean * rstd would not.)
template <bool kLayer>
__device__ __forceinline__ float xhat(float x, RowStats s) {
  return kLayer ? (x - s.mean) * s.rstd : x * s.rstd;
}

// g = dy * w rounded once: __fmul_rn is never contracted into an FMA, so a kernel that computes g
// twice (once for the row sums, once for dx) gets the same value both times. Contracted, g - mean(g)
// kept the product's rounding, and LayerNorm's dx at N = 1 (exactly 0) came out -4.5e-6 at rstd 316.
__device__ __forceinline__ float output_grad(float dy, float w) { return __fmul_rn(dy, w); }

// g for each value of a pack.
template <int VEC>
__device__ __forceinline__ nb::dev::FloatPack<VEC> pack_output_grad(const nb::dev::FloatPack<VEC>& dy,
                                                                    const nb::dev::FloatPack<VEC>& w) {
  nb::dev::FloatPack<VEC> g;
#pragma unroll
  for (int i = 0; i < VEC; ++i) g.v[i] = output_grad(dy.v[i], w.v[i]);
  return g;
}

// dx = rstd * (g - mean(g) - xhat * mean(g * xhat)); mean_g is 0 for RMSNorm.
__device__ __forceinline__ float input_grad(float g, float xh, float rstd, float mean_g, float mean_gx) {
  return rstd * (g - mean_g - xh * mean_gx);
}

// The two row sums behind dx: sum g (LayerNorm only) and sum g * xhat. merge and shfl_xor make it
// a statistic that kernels/primitives/merge.cuh combines across a warp or a block. RowSums{} is zero
// (no member initializers: shared-memory arrays of it must be trivially constructible).
struct RowSums {
  float g, gx;

  __device__ void merge(const RowSums& o) {
    g += o.g;
    gx += o.gx;
  }
};

__device__ __forceinline__ RowSums shfl_xor(const RowSums& s, int offset) {
  return {__shfl_xor_sync(0xffffffffu, s.g, offset), __shfl_xor_sync(0xffffffffu, s.gx, offset)};
}

// A pack's xhat and g: what dx takes again after the row sums.
template <int VEC>
struct PackTerms {
  nb::dev::FloatPack<VEC> xh, g;
};

// One pack of a row in fp32: its share of the two row sums into s, and dy * xhat (and dy, for
// LayerNorm) into the column sums dw (and db); returns the pack's xhat and g.
template <bool kLayer, int VEC>
__device__ __forceinline__ PackTerms<VEC> add_pack(const nb::dev::FloatPack<VEC>& x, const nb::dev::FloatPack<VEC>& dy,
                                                   const nb::dev::FloatPack<VEC>& w, RowStats st, RowSums& s,
                                                   nb::dev::FloatPack<VEC>& dw, nb::dev::FloatPack<VEC>& db) {
  PackTerms<VEC> t;
#pragma unroll
  for (int i = 0; i < VEC; ++i) {
    const float xh = xhat<kLayer>(x.v[i], st), gv = output_grad(dy.v[i], w.v[i]);
    s.g += gv;
    s.gx += gv * xh;
    dw.v[i] += dy.v[i] * xh;
    if (kLayer) db.v[i] += dy.v[i];
    t.xh.v[i] = xh;
    t.g.v[i] = gv;
  }
  return t;
}

// One pack's dx from its xhat and g and the row's two means.
template <int VEC>
__device__ __forceinline__ nb::dev::FloatPack<VEC> pack_input_grad(const PackTerms<VEC>& t, float rstd, float mean_g,
                                                                   float mean_gx) {
  nb::dev::FloatPack<VEC> dx;
#pragma unroll
  for (int i = 0; i < VEC; ++i) dx.v[i] = input_grad(t.g.v[i], t.xh.v[i], rstd, mean_g, mean_gx);
  return dx;
}

// The same from the pack's inputs.
template <bool kLayer, int VEC>
__device__ __forceinline__ nb::dev::FloatPack<VEC> pack_input_grad(const nb::dev::FloatPack<VEC>& x,
                                                                   const nb::dev::FloatPack<VEC>& dy,
                                                                   const nb::dev::FloatPack<VEC>& w, RowStats st,
                                                                   float mean_g, float mean_gx) {
  PackTerms<VEC> t;
#pragma unroll
  for (int i = 0; i < VEC; ++i) t.xh.v[i] = xhat<kLayer>(x.v[i], st), t.g.v[i] = output_grad(dy.v[i], w.v[i]);
  return pack_input_grad<VEC>(t, st.rstd, mean_g, mean_gx);
}

}  // namespace dev
}  // namespace nb::rows_bwd
