#pragma once
// What register_row's kernels (5_register_row.cu, staged_rows.cu) share: the row's tensors, a pack
// minus the mean (the values whose squares make the variance), the row's mean and rstd (two passes,
// or one of shifted sums for 2-byte rows), and y from a pack.
#include <cuda_runtime.h>

#include "kernels/primitives/storage.cuh"
#include "kernels/rms/rms_math.cuh"
#include "kernels/rows/row_reducers.cuh"

namespace nb::layernorm_rows {

template <class T>
struct RowTensors {
  const T* x;
  const T* w;
  const T* b;
  T* y;
  float* mean;
  float* rstd;
};

template <int VEC>
__device__ __forceinline__ dev::FloatPack<VEC> centered(const dev::FloatPack<VEC>& v, float mean) {
  dev::FloatPack<VEC> out;
#pragma unroll
  for (int i = 0; i < VEC; ++i) out.v[i] = v.v[i] - mean;
  return out;
}

struct MeanRstd {
  float mean, rstd;
};

// The row's mean and rstd. each_pack(f) calls f on every pack this thread holds, as fp32 values
// (zeros where a pack is not the thread's: harmless in the sums); each_centered(mean, f) on each
// of them minus `mean` (zeros where not the thread's). part_count: the elements of this block's
// part of the row.
// One block or lane group a row: the row's mean, then the squares of the deviations from it
// (row_inv_rms, rescaled by a power of two where they overflow). A cluster: each block's own mean
// and squared deviations (two block reductions), merged over the cluster by Chan's formula in one
// round instead of two; where the merged M2 is not finite (a square overflowed, or a NaN or an Inf
// in the row), the row takes the first path, and keeps its results.
template <int VEC, class EachPack, class EachCentered, class Reducer>
__device__ __forceinline__ MeanRstd row_mean_rstd(EachPack each_pack, EachCentered each_centered, Reducer& reduce,
                                                  float part_count, float inv_n, float eps) {
  float sum = 0.0f;
  each_pack([&](const dev::FloatPack<VEC>& a) {
#pragma unroll
    for (int i = 0; i < VEC; ++i) sum += a.v[i];
  });
  if constexpr (Reducer::kClusters) {
    if (reduce.clustered()) {
      const float block_total = reduce.block_sum(sum);
      const float part_mean = part_count > 0.0f ? block_total / part_count : 0.0f;
      float sq = 0.0f;
      each_centered(part_mean, [&](const dev::FloatPack<VEC>& c) {
#pragma unroll
        for (int i = 0; i < VEC; ++i) sq = fmaf(c.v[i], c.v[i], sq);
      });
      const float part_m2 = reduce.block_sum(sq);
      const dev::Welford row =
          reduce.merge_moments(part_count > 0.0f ? dev::Welford{part_count, part_mean, part_m2} : dev::Welford{});
      if (!rms::sum_overflowed(row.m2)) return {row.mean, rms::inv_rms(row.m2, inv_n, eps)};
    }
  }
  const float mean = reduce.sum(sum) * inv_n;
  return {mean, rows::row_inv_rms<VEC>([&](auto f) { each_centered(mean, f); }, reduce, inv_n, eps)};
}

// The shift of the one-pass sums of a row held in one block (row_mean_rstd_one_pass): the mean of
// the row's first two values, one 32-bit word (a register through the row's loads).
template <class T>
using FirstPair = dev::PackWord<T, 2>;

template <class T>
__device__ __forceinline__ FirstPair<T> load_first_pair(const T* row) {
  return __ldg(reinterpret_cast<const FirstPair<T>*>(row));
}

template <class T>
__device__ __forceinline__ float first_pair_mean(const FirstPair<T>& raw) {
  const dev::FloatPack<2> v = dev::rewiden<T, 2>(raw);
  return (v.v[0] + v.v[1]) * 0.5f;
}

// row_mean_rstd in one pass and one reduction, for rows stored in 2 bytes: the sums of x and of
// d^2, d = x - shift, together (one block reduction, and one round in a cluster); three instructions
// a value with its widening where the shift is 0 (the compiler drops the subtraction), four
// otherwise. The mean is the plain sum's, as row_mean_rstd's, and M2 = sum(d^2) - n t^2 with t =
// mean - shift (sum(d^2) = M2 + n t^2 exactly). Its rounding, for sums of g terms a thread and tree
// levels (gamma = (g + 2) 2^-24, g counting the levels), stays within 25 gamma of M2 where |t| (n
// |shift| + sqrt(n sum(d^2))) <= 8 M2: sum(d^2)'s own error (gamma sum(d^2), and the guard keeps
// sum(d^2) <= 9 M2, since sqrt(n sum(d^2)) >= n |t|) and the mean's (at most gamma sum|x|, with
// sum|x| <= n |shift| + sqrt(n sum(d^2)) by Cauchy-Schwarz, entering n t^2 times 2 n |t|: at most
// 16 gamma M2). That is about 1.1e-4 of M2 at most for g = 64 + 12 (rstd's error half of it, a
// third of an fp16 output's half ulp). With a shift of 0 the guard holds where the mean is within
// about 2.8 standard deviations of zero. Other rows, and rows whose sum of squares is not finite (a
// NaN or an Inf, an overflow), take the squared deviations from the mean again as row_mean_rstd
// takes them, with its results. each_pack_mine(f) calls f(pack, mine) on each pack each_pack
// visits, mine false for the zeros past the row: their sums are dropped a pack at a time (masking
// each value spilled the held rows' registers). n: the row's length; inv_n: 1 / n. In two halves
// for kernels that reduce the sums themselves: this thread's sums (one_pass_sums), and the row's
// mean and rstd from their totals (mean_rstd_of_sums).
template <int VEC, class EachPackMine>
__device__ __forceinline__ float2 one_pass_sums(EachPackMine each_pack_mine, float shift) {
  float2 sums = make_float2(0.0f, 0.0f);  // x, d^2
  each_pack_mine([&](const dev::FloatPack<VEC>& v, bool mine) {
    float2 pack = make_float2(0.0f, 0.0f);
#pragma unroll
    for (int i = 0; i < VEC; ++i) {
      const float d = v.v[i] - shift;
      pack.x += v.v[i];
      pack.y = fmaf(d, d, pack.y);
    }
    if (mine) {
      sums.x += pack.x;
      sums.y += pack.y;
    }
  });
  return sums;
}

template <int VEC, class EachCentered, class Reducer>
__device__ __forceinline__ MeanRstd mean_rstd_of_sums(float2 sums, EachCentered each_centered, Reducer& reduce,
                                                      float shift, float n, float inv_n, float eps) {
  const float mean = sums.x * inv_n, t = mean - shift;
  const float m2 = fmaf(-t, t * n, sums.y);
  const bool bounded =
      !rms::sum_overflowed(sums.y) && fabsf(t) * fmaf(n, fabsf(shift), sqrtf(n * sums.y)) <= 8.0f * m2;
  if (!reduce.any(!bounded)) return {mean, rms::inv_rms(m2, inv_n, eps)};  // the same in every thread
  return {mean, rows::row_inv_rms<VEC>([&](auto f) { each_centered(mean, f); }, reduce, inv_n, eps)};
}

template <int VEC, class EachPackMine, class EachCentered, class Reducer>
__device__ __forceinline__ MeanRstd row_mean_rstd_one_pass(EachPackMine each_pack_mine, EachCentered each_centered,
                                                           Reducer& reduce, float shift, float n, float inv_n,
                                                           float eps) {
  const float2 sums = reduce.sum2(one_pass_sums<VEC>(each_pack_mine, shift));
  return mean_rstd_of_sums<VEC>(sums, each_centered, reduce, shift, n, inv_n, eps);
}

// y = (v - mean) * rstd * w + b for one pack of T. Rows stored in 2 bytes take v * rstd - mean *
// rstd, one FMA where the subtraction and the product took two: it adds a rounding of mean * rstd,
// the size of the one the mean itself carries (2^-24 |mean| rstd; the condition factor |mean| / std
// scales the bound for both), far below the output's own rounding (2^-9 or 2^-12 of it).
template <class T, int VEC>
__device__ __forceinline__ dev::FloatPack<VEC> normalized(const dev::FloatPack<VEC>& v, const dev::FloatPack<VEC>& w,
                                                         const dev::FloatPack<VEC>& b, float mean, float rstd) {
  dev::FloatPack<VEC> out;
  if constexpr (sizeof(T) == 2) {
    const float shift = -mean * rstd;
#pragma unroll
    for (int i = 0; i < VEC; ++i) out.v[i] = fmaf(fmaf(v.v[i], rstd, shift), w.v[i], b.v[i]);
  } else {
#pragma unroll
    for (int i = 0; i < VEC; ++i) out.v[i] = fmaf((v.v[i] - mean) * rstd, w.v[i], b.v[i]);
  }
  return out;
}

}  // namespace nb::layernorm_rows
