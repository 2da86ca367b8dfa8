#pragma once
// Which GEMM mainloop a pipeline variant runs: SIMT (IEEE fp32) or tensor cores (tf32) by the
// problem's precision, large tiles when they fill the GPU, smaller ones when they would not.
#include "harness/device/sm_count.hpp"
#include "kernels/gemm/gemm_kernel.cuh"

namespace nb::linear {

template <class T> struct MainloopTag { using type = T; };

// Tall, narrow tiles that hold all of a small batch (M <= 128) and wide, short ones that hold all
// of a row (N <= 256): the single-launch variants' shapes.
using Tf32ColumnStrip = gemm::Tf32Mainloop<128, 32, 32, 4, 2, 3>;
using Tf32RowStrip = gemm::Tf32Mainloop<16, 256, 32, 1, 8, 3>;

// Large tiles when they give at least one CTA per SM, else 64 x 64 tiles. The large ones are the
// fastest of gemm_configs on the H100 (docs/notes/gemm-pipelines.md): SIMT 128 x 256 x 16 (86% of
// cuBLAS fp32 at 1024 x 8192 x 8192) and tf32 128 x 128 with 64 x 64 warp tiles (34% of cuBLAS's
// wgmma kernel).
template <class Large, class Small, class F>
void with_tiles_for(int m, int n, F f) {
  if (gemm::tiles_m<Large>(m) * gemm::tiles_n<Large>(n) >= device_sm_count())
    f(MainloopTag<Large>{});
  else
    f(MainloopTag<Small>{});
}

// Calls f(MainloopTag<Mainloop>{}) with the mainloop for this precision and size.
template <class F>
void with_mainloop(bool tf32, int m, int n, F f) {
  if (tf32)
    with_tiles_for<gemm::Tf32Large64, gemm::Tf32Small>(m, n, f);
  else
    with_tiles_for<gemm::SimtWideK16, gemm::SimtSquare>(m, n, f);
}

}  // namespace nb::linear
