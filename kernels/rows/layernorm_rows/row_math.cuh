#pragma once
// What register_row's kernels (5_register_row.cu, staged_rows.cu) share: the row's tensors, a pack
// minus the mean (the values whose squares make the variance), the row's mean and rstd, and y from
// a pack.
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
