#pragma once
// The contract between the persistent Hopper GEMM (wgmma_persistent.cuh) and its epilogues: the
// tile is never staged; each of the 256 consumer threads hands its 128 fp32 accumulators, still in
// registers, to the epilogue, in wgmma m64n256's layout: acc[4j + 2h + e] is the tile's row
// first_row + 8h and column 8j + 2 quad + e (j < 32; h, e in {0, 1}). A warp holds 16 whole rows,
// and the 4 threads of a quad (lanes 4i..4i+3) hold two whole rows between them, so a row's
// reduction is two shuffles and a column's needs the 8 warps (through the scratch).
//
// A fragment epilogue is a copyable struct (kernel parameter) with
//   static constexpr int kScratchFloats;                                 // shared floats it needs
//   __device__ void prefetch(const FragmentTile&) const;                 // before the tile's mainloop
//   __device__ void operator()(float (&acc)[128], const FragmentTile&) const;
// both called by the 256 consumer threads alone (the producer is streaming the next tile
// meanwhile), which meet with consumer_sync(). prefetch sees the tile's coordinates before its
// mainloop: it brings what the epilogue will read into L1 (prefetch_l1), since the L2 is busy with
// the operands' stream by then. operator() may overwrite acc; it must consumer_sync() before it
// first writes the scratch, which the previous tile's call may still be reading.
#include <cuda_runtime.h>

namespace nb::gemm::sm90 {

struct FragmentTile {
  int row0, col0;      // the tile's first element of C
  int rows, cols;      // in C: min(128, m - row0), min(256, n - col0); the rest holds garbage
  int tile_m, tile_n;  // its indices in the tile order: row0 = 128 tile_m, col0 = 256 tile_n
  int first_row;       // this thread's rows of the tile: first_row and first_row + 8
  int quad;            // lane % 4: this thread's columns 8j + 2 quad + e
  int thread, warp;    // among the consumers: 0..255 and 0..7
  float* scratch;      // kScratchFloats of shared memory

  __device__ int row(int h) const { return first_row + 8 * h; }
  __device__ bool has_row(int h) const { return row(h) < rows; }
  __device__ int column(int j, int e) const { return 8 * j + 2 * quad + e; }
};

// Asks L1 for the 128-byte lines of [p, p + bytes), one line per `slot` from 0 (slots past the last
// line ask nothing; 32 slots cover 4 KB). Only lines inside the range are named.
__device__ inline void prefetch_l1(const void* p, int bytes, int slot) {
  if (p == nullptr || bytes <= 0) return;
  const auto first = reinterpret_cast<unsigned long long>(p), last = first + (unsigned long long)(bytes - 1);
  const unsigned long long line = (first & ~127ull) + 128ull * (unsigned long long)slot;
  if (slot < 0 || line > last) return;
  const unsigned long long address = line < first ? first : line;
  asm volatile("prefetch.global.L1 [%0];\n" ::"l"(address));
}

// The barrier of the two consumer warpgroups (named barrier 1; 0 is __syncthreads()).
__device__ inline void consumer_sync() { asm volatile("bar.sync 1, 256;\n" ::: "memory"); }

// v reduced by op over a row's quad (the four threads that hold the row).
template <class Op>
__device__ inline float quad_reduce(float v, Op op) {
  v = op(v, __shfl_xor_sync(0xffffffffu, v, 1));
  return op(v, __shfl_xor_sync(0xffffffffu, v, 2));
}

// The sum of v over the 8 quads of a warp (one column's 16 rows, each thread's two already added).
__device__ inline float warp_column_sum(float v) {
  v += __shfl_xor_sync(0xffffffffu, v, 4);
  v += __shfl_xor_sync(0xffffffffu, v, 8);
  return v + __shfl_xor_sync(0xffffffffu, v, 16);
}

}  // namespace nb::gemm::sm90
