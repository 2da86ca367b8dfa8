#pragma once
// The store epilogue (store_epilogue.cuh) from the accumulators in registers, for the persistent
// Hopper GEMM: each thread writes its two rows' column pairs (8 bytes; a quad's 32 bytes are one
// sector), plus the optional per-column bias.
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/gemm/sm90/fragment_tile.cuh"
#include "kernels/gemm/store_epilogue.cuh"

namespace nb::gemm::sm90 {

struct StoreFragment {
  StoreEpilogue store;

  static constexpr int kScratchFloats = 0;
  static constexpr bool kOneWarpgroup = true;  // a thread's own rows alone: fits the ping-pong grid too
  struct Early {};  // the bias, when there is one, is read where it is added

  __device__ Early load_early(const FragmentTile&) const { return {}; }

  __device__ void operator()(float (&acc)[128], const FragmentTile& t, const Early&) const {
    const bool pairs = store.ldc % 2 == 0 && reinterpret_cast<std::uintptr_t>(store.c) % 8 == 0;
    #pragma unroll
    for (int h = 0; h < 2; ++h) {
      if (!t.has_row(h)) continue;
      float* row = store.c + static_cast<long long>(t.row0 + t.row(h)) * store.ldc + t.col0;
      #pragma unroll
      for (int j = 0; j < 32; ++j) {
        const int c = t.column(j, 0);
        float v0 = acc[4 * j + 2 * h], v1 = acc[4 * j + 2 * h + 1];
        if (store.bias != nullptr) {
          if (c < t.cols) v0 += store.bias[t.col0 + c];
          if (c + 1 < t.cols) v1 += store.bias[t.col0 + c + 1];
        }
        if (pairs && c + 1 < t.cols) {
          *reinterpret_cast<float2*>(row + c) = make_float2(v0, v1);
        } else {
          if (c < t.cols) row[c] = v0;
          if (c + 1 < t.cols) row[c + 1] = v1;
        }
      }
    }
  }
};

}  // namespace nb::gemm::sm90
