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

// The shift of row_mean_rstd_shifted's sums for a row of 2-byte values: the mean of its first two,
// one 32-bit word (a register through the row's loads), the same bits in every block of a cluster.
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

// row_mean_rstd in one pass and one reduction, for rows stored in 2 bytes: the sums of x, of
// d = x - shift and of d^2 together (one block reduction, and one round in a cluster). The mean is the
// plain sum's, as row_mean_rstd's; M2 = sum(d^2) - sum(d)^2 / n where that keeps M2 >= sum(d^2) /
// 16, i.e. the shift within sqrt(15) standard deviations of the mean: the subtraction then
// magnifies the sums' rounding at most 16 times (M2's relative error under 16 (g + 2) 2^-24 for
// sums of g terms a thread and tree levels: about 1e-4 at g = 64 + 12, rstd's half of it a tenth of
// an fp16 output's half ulp). Otherwise, and where the sum of squares is not finite (a NaN or an Inf
// in the row, an overflow), the squared deviations from the mean are taken again as row_mean_rstd
// takes them, with its results. each_pack_mine(f) calls f(pack, mine) on each pack each_pack
// visits, mine false for the zeros past the row: their sums are dropped a pack at a time (masking
// each value spilled the held rows' registers). Reducer::sum3 takes 48 floats of scratch.
template <int VEC, class EachPackMine, class EachCentered, class Reducer>
__device__ __forceinline__ MeanRstd row_mean_rstd_shifted(EachPackMine each_pack_mine, EachCentered each_centered,
                                                          Reducer& reduce, float shift, float inv_n, float eps) {
  float3 sums = make_float3(0.0f, 0.0f, 0.0f);  // x, d, d^2
  each_pack_mine([&](const dev::FloatPack<VEC>& v, bool mine) {
    float3 pack = make_float3(0.0f, 0.0f, 0.0f);
#pragma unroll
    for (int i = 0; i < VEC; ++i) {
      const float d = v.v[i] - shift;
      pack.x += v.v[i];
      pack.y += d;
      pack.z = fmaf(d, d, pack.z);
    }
    if (mine) {
      sums.x += pack.x;
      sums.y += pack.y;
      sums.z += pack.z;
    }
  });
  sums = reduce.sum3(sums);
  const float mean = sums.x * inv_n;
  const float m2 = fmaf(-sums.y, sums.y * inv_n, sums.z);
  if (!rms::sum_overflowed(sums.z) && m2 >= sums.z * 0.0625f) return {mean, rms::inv_rms(m2, inv_n, eps)};
  return {mean, rows::row_inv_rms<VEC>([&](auto f) { each_centered(mean, f); }, reduce, inv_n, eps)};
}

// y = (v - mean) * rstd * w + b for one pack.
template <int VEC>
__device__ __forceinline__ dev::FloatPack<VEC> normalized(const dev::FloatPack<VEC>& v, const dev::FloatPack<VEC>& w,
                                                         const dev::FloatPack<VEC>& b, float mean, float rstd) {
  dev::FloatPack<VEC> out;
#pragma unroll
  for (int i = 0; i < VEC; ++i) out.v[i] = fmaf((v.v[i] - mean) * rstd, w.v[i], b.v[i]);
  return out;
}

}  // namespace nb::layernorm_rows
