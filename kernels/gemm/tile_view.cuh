#pragma once
// The contract between the GEMM mainloop and its epilogue (CUTLASS's epilogue visitors, made
// simple): after the mainloop, the CTA stages its accumulator tile in shared memory in a plain
// row-major layout and calls the epilogue with a view of it. The epilogue never sees the
// mainloop's fragment layout, and the mainloop knows nothing of what the epilogue computes.
#include <cuda_runtime.h>

namespace nb::gemm {

// One CTA's accumulator tile, C[row0 + r][col0 + c] = s[r * ld + c], for r < rows, c < cols
// (edge tiles are partial; elements beyond rows/cols hold garbage and must not be used).
struct TileView {
  float* s;
  int ld;
  int row0, col0;
  int rows, cols;
  int tile_m, tile_n;  // the tile's indices: row0 = tile_m * BM, col0 = tile_n * BN
  float* scratch;      // Epilogue::kScratchFloats floats of shared memory beyond the tile
};

// The CTA's view of the bm x bn tile at (row0, col0) of an m x n C, staged at `s` with leading
// dimension `ld`, partial at the edges; (tile_m, tile_n) are the tile's indices in the tile order
// of the Hopper GEMM's 1-D grid. (gemm_kernel.cuh builds its view in place: see there why.)
__device__ inline TileView staged_tile_view(float* s, int ld, int bm, int bn, int row0, int col0, int tile_m,
                                            int tile_n, int m, int n, float* scratch) {
  TileView view;
  view.s = s;
  view.ld = ld;
  view.row0 = row0, view.col0 = col0;
  view.rows = min(bm, m - row0), view.cols = min(bn, n - col0);
  view.tile_m = tile_m, view.tile_n = tile_n;
  view.scratch = scratch;
  return view;
}

// An epilogue policy is a copyable struct (kernel parameter) with
//   static constexpr int kScratchFloats;                // shared floats it needs besides the tile
//   __device__ void operator()(const TileView&) const;  // all threads of the CTA call it
// It is called after a __syncthreads() that makes the staged tile visible, with blockDim.x
// threads (a multiple of 32). It may read and overwrite the tile and the scratch, and must
// __syncthreads() itself between its own phases.

}  // namespace nb::gemm
