#pragma once
// The fused prologue: a GEMM operand source (operand_tiles.cuh) whose values are dg, computed in
// the tile loader from dy and g with the per-column coefficients of backward_passes.hpp,
// dg = A_j dy + B_j (g - c_j) + C_j. fetch() issues the loads of dy and g (in flight during the
// previous tile's math); finish() reads the coefficients (small, cached) and computes dg before
// the shared store. dg is never written: each GEMM reads dy and g instead.
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/gemm/operand_tiles.cuh"
#include "kernels/gemm_pipelines/gemm_scale_bn_bwd/dg_affine.cuh"

namespace nb::gemm_scale_bn_bwd::dev {

struct DgSource {
  struct Raw {
    float4 dy, g;
  };
  const float* dy;
  const float* g;
  DgCoefficients k;
  int rows, cols;  // M, N: dy and g are (M, N) row-major

  template <bool kVector>
  __device__ Raw fetch(int row, int col) const {
    const gemm::PlainSource dy_source{dy, rows, cols}, g_source{g, rows, cols};
    return {dy_source.fetch<kVector>(row, col), g_source.fetch<kVector>(row, col)};
  }

  template <bool kVector>
  __device__ float4 finish(const Raw& r, int row, int col) const {
    float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
    if (row >= rows) return v;
    if constexpr (kVector) {
      if (col < cols) v = dg_value4(k, col, r.dy, r.g);  // cols % 4 == 0: all 4 inside or none
    } else {
      if (col + 0 < cols) v.x = dg_value(k, col + 0, r.dy.x, r.g.x);
      if (col + 1 < cols) v.y = dg_value(k, col + 1, r.dy.y, r.g.y);
      if (col + 2 < cols) v.z = dg_value(k, col + 2, r.dy.z, r.g.z);
      if (col + 3 < cols) v.w = dg_value(k, col + 3, r.dy.w, r.g.w);
    }
    return v;
  }

  bool vector_ok() const {
    auto aligned = [](const float* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
    return cols % 4 == 0 && aligned(dy) && aligned(g) && aligned(k.a) && aligned(k.b) && aligned(k.c) &&
           aligned(k.shift);
  }
};

}  // namespace nb::gemm_scale_bn_bwd::dev
