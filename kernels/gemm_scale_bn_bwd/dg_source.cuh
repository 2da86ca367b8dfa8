#pragma once
// The fused prologue: a GEMM operand source (operand_tiles.cuh) whose values are dg, computed in
// the tile loader from dy and g with the per-column coefficients of backward_passes.hpp,
// dg = A_j dy + B_j (g - c_j) + C_j. fetch() issues the loads of dy and g (in flight during the
// previous tile's math); finish() reads the coefficients (small, cached) and computes dg before
// the shared store. dg is never written: each GEMM reads dy and g instead.
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/gemm_common/operand_tiles.cuh"
#include "kernels/gemm_scale_bn_bwd/backward_passes.hpp"

namespace nb::bn_backward::dev {

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
      if (col >= cols) return v;  // cols % 4 == 0: all 4 inside or none
      const float4 a = __ldg(reinterpret_cast<const float4*>(k.a + col));
      const float4 b = __ldg(reinterpret_cast<const float4*>(k.b + col));
      const float4 c = __ldg(reinterpret_cast<const float4*>(k.c + col));
      const float4 s = __ldg(reinterpret_cast<const float4*>(k.shift + col));
      v.x = fmaf(a.x, r.dy.x, fmaf(b.x, r.g.x - s.x, c.x));
      v.y = fmaf(a.y, r.dy.y, fmaf(b.y, r.g.y - s.y, c.y));
      v.z = fmaf(a.z, r.dy.z, fmaf(b.z, r.g.z - s.z, c.z));
      v.w = fmaf(a.w, r.dy.w, fmaf(b.w, r.g.w - s.w, c.w));
    } else {
      const float dys[4] = {r.dy.x, r.dy.y, r.dy.z, r.dy.w}, gs[4] = {r.g.x, r.g.y, r.g.z, r.g.w};
      float out[4] = {0.f, 0.f, 0.f, 0.f};
#pragma unroll
      for (int i = 0; i < 4; ++i)
        if (col + i < cols) {
          const int j = col + i;
          out[i] = fmaf(__ldg(k.a + j), dys[i], fmaf(__ldg(k.b + j), gs[i] - __ldg(k.shift + j), __ldg(k.c + j)));
        }
      v = make_float4(out[0], out[1], out[2], out[3]);
    }
    return v;
  }

  bool vector_ok() const {
    auto aligned = [](const float* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
    return cols % 4 == 0 && aligned(dy) && aligned(g) && aligned(k.a) && aligned(k.b) && aligned(k.c) &&
           aligned(k.shift);
  }
};

}  // namespace nb::bn_backward::dev
