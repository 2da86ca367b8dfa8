#pragma once
// dg from dy and g with one column's coefficients (backward_passes.hpp): A dy + B (g - c) + C.
// The one formula every writer of dg and the GEMM prologue evaluate.
#include <cuda_runtime.h>

#include "kernels/gemm_pipelines/gemm_scale_bn_bwd/backward_passes.hpp"

namespace nb::gemm_scale_bn_bwd::dev {

__device__ inline float dg_value(const DgCoefficients& k, int col, float dy, float g) {
  return fmaf(__ldg(k.a + col), dy, fmaf(__ldg(k.b + col), g - __ldg(k.shift + col), __ldg(k.c + col)));
}

// Four consecutive columns from col (a multiple of 4; the coefficient vectors 16-byte aligned).
__device__ inline float4 dg_value4(const DgCoefficients& k, int col, float4 dy, float4 g) {
  const float4 a = __ldg(reinterpret_cast<const float4*>(k.a + col));
  const float4 b = __ldg(reinterpret_cast<const float4*>(k.b + col));
  const float4 c = __ldg(reinterpret_cast<const float4*>(k.c + col));
  const float4 s = __ldg(reinterpret_cast<const float4*>(k.shift + col));
  return make_float4(fmaf(a.x, dy.x, fmaf(b.x, g.x - s.x, c.x)), fmaf(a.y, dy.y, fmaf(b.y, g.y - s.y, c.y)),
                     fmaf(a.z, dy.z, fmaf(b.z, g.z - s.z, c.z)), fmaf(a.w, dy.w, fmaf(b.w, g.w - s.w, c.w)));
}

}  // namespace nb::gemm_scale_bn_bwd::dev
