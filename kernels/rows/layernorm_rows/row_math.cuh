#pragma once
// What register_row's kernels (5_register_row.cu, staged_rows.cu) share: the row's tensors, a pack
// minus the mean (the values whose squares make the variance), and y from a pack.
#include <cuda_runtime.h>

#include "kernels/primitives/storage.cuh"

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
