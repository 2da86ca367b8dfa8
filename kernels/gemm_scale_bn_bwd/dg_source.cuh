#pragma once
// The fused prologue: a GEMM operand source (operand_tiles.cuh) whose values are dg, computed in
// the tile loader from dy and g with the per-column coefficients of backward_passes.hpp,
// dg = A_j dy + B_j (g - c_j) + C_j. dg is never written: each GEMM reads dy and g instead.
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/gemm_scale_bn_bwd/backward_passes.hpp"

namespace nb::bn_backward::dev {

struct DgSource {
  const float* dy;
  const float* g;
  DgCoefficients k;
  int rows, cols;  // M, N: dy and g are (M, N) row-major

  template <bool kVector>
  __device__ float4 load4(int row, int col) const {
    float4 r = make_float4(0.f, 0.f, 0.f, 0.f);
    if (row >= rows) return r;
    const long long at = static_cast<long long>(row) * cols + col;
    if constexpr (kVector) {
      if (col >= cols) return r;  // cols % 4 == 0: all 4 inside or none
      const float4 d = __ldg(reinterpret_cast<const float4*>(dy + at));
      const float4 x = __ldg(reinterpret_cast<const float4*>(g + at));
      const float4 a = __ldg(reinterpret_cast<const float4*>(k.a + col));
      const float4 b = __ldg(reinterpret_cast<const float4*>(k.b + col));
      const float4 c = __ldg(reinterpret_cast<const float4*>(k.c + col));
      const float4 s = __ldg(reinterpret_cast<const float4*>(k.shift + col));
      r.x = fmaf(a.x, d.x, fmaf(b.x, x.x - s.x, c.x));
      r.y = fmaf(a.y, d.y, fmaf(b.y, x.y - s.y, c.y));
      r.z = fmaf(a.z, d.z, fmaf(b.z, x.z - s.z, c.z));
      r.w = fmaf(a.w, d.w, fmaf(b.w, x.w - s.w, c.w));
    } else {
      float v[4] = {0.f, 0.f, 0.f, 0.f};
#pragma unroll
      for (int i = 0; i < 4; ++i)
        if (col + i < cols) {
          const int j = col + i;
          v[i] = fmaf(__ldg(k.a + j), __ldg(dy + at + i), fmaf(__ldg(k.b + j), __ldg(g + at + i) - __ldg(k.shift + j),
                                                               __ldg(k.c + j)));
        }
      r = make_float4(v[0], v[1], v[2], v[3]);
    }
    return r;
  }

  bool vector_ok() const {
    auto aligned = [](const float* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
    return cols % 4 == 0 && aligned(dy) && aligned(g) && aligned(k.a) && aligned(k.b) && aligned(k.c) &&
           aligned(k.shift);
  }
};

}  // namespace nb::bn_backward::dev
