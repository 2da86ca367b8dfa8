#pragma once
// The simplest epilogue policy: store the tile (plus an optional per-column bias) to a row-major
// C in global memory, consecutive threads on consecutive columns so that stores coalesce.
#include <cuda_runtime.h>

#include "kernels/gemm/tile_view.cuh"

namespace nb::gemm {

struct StoreEpilogue {
  float* c;            // (m, n) with leading dimension ldc
  int ldc;
  const float* bias;   // (n) or nullptr

  static constexpr int kScratchFloats = 0;

  __device__ void operator()(const TileView& t) const {
    const int count = t.rows * t.cols;
    for (int i = threadIdx.x; i < count; i += blockDim.x) {
      const int r = i / t.cols, col = i % t.cols;
      float v = t.s[r * t.ld + col];
      if (bias != nullptr) v += bias[t.col0 + col];
      c[static_cast<long long>(t.row0 + r) * ldc + t.col0 + col] = v;
    }
  }
};

}  // namespace nb::gemm
