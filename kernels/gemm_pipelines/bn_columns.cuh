#pragma once
// Device pieces of BatchNorm over the batch rows of a GEMM output: per-column Welford partials
// (exact two-pass over a tile's rows, merged the Chan way), and the per-column commit that writes
// the saved statistics, updates the running ones and folds the affine into one scale and shift.
#include <cuda_runtime.h>

#include "kernels/primitives/saturated_variance.cuh"
#include "kernels/primitives/welford.cuh"
#include "kernels/gemm_pipelines/bn_column_args.hpp"

namespace nb::linear::dev {

using nb::dev::Welford;

// y = h * scale + shift for one column.
struct ColumnAffine {
  float scale, shift;
};

// A column's batch statistics over all M rows, as BatchNorm commits them.
struct ColumnStatistics {
  float mean, var, invstd;  // var biased (saturated at 0 against rounding)
};

__device__ __forceinline__ ColumnStatistics column_statistics(const BnColumnArgs& a, const Welford& w) {
  const float var = nb::dev::saturated_variance(w.mean, w.variance_biased());
  return {w.mean, var, 1.0f / sqrtf(var + a.eps)};
}

// Writes column c's saved statistics and updates its running ones (one thread per column).
__device__ __forceinline__ void commit_statistics(const BnColumnArgs& a, int c, const ColumnStatistics& s) {
  a.save_mean[c] = s.mean;
  a.save_invstd[c] = s.invstd;
  a.running_mean[c] = (1.0f - a.momentum) * a.running_mean[c] + a.momentum * s.mean;
  a.running_var[c] = (1.0f - a.momentum) * a.running_var[c] + a.momentum * s.var * a.unbias;
}

// y = h * scale + shift with the column's gamma and beta.
__device__ __forceinline__ ColumnAffine column_affine(const ColumnStatistics& s, float gamma, float beta) {
  const float scale = s.invstd * gamma;
  return {scale, beta - s.mean * scale};
}

// Called by one thread per column with the column's statistics over all M rows.
__device__ __forceinline__ ColumnAffine commit_column(const BnColumnArgs& a, int c, const Welford& w) {
  const ColumnStatistics s = column_statistics(a, w);
  commit_statistics(a, c, s);
  return column_affine(s, a.gamma[c], a.beta[c]);
}

// Exact statistics of `rows` values v[0], v[ld], v[2 ld], ... (one column of a shared-memory
// tile): mean first, then the sum of squared deviations, as a Welford triple ready to merge.
__device__ __forceinline__ Welford column_moments(const float* v, int ld, int rows) {
  float sum = 0.0f;
  for (int r = 0; r < rows; ++r) sum += v[r * ld];
  const float mean = sum / float(rows);
  float m2 = 0.0f;
  for (int r = 0; r < rows; ++r) {
    const float d = v[r * ld] - mean;
    m2 = fmaf(d, d, m2);
  }
  Welford w;
  w.count = float(rows);
  w.mean = mean;
  w.m2 = m2;
  return w;
}

}  // namespace nb::linear::dev
