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
//   struct Early;                                                        // global values it reads
//   __device__ Early load_early(const FragmentTile&) const;              // before the tile's mainloop
//   __device__ void operator()(float (&acc)[128], const FragmentTile&, const Early&) const;
// both called by the 256 consumer threads alone (the producer is streaming the next tile
// meanwhile), which meet with consumer_sync(). load_early issues the loads of what the epilogue
// will need from global memory (the tile's per-column parameters: TileColumnValues), so that
// they land during the mainloop instead of stalling the epilogue one after another while the
// tensor cores wait (BatchNorm's bias and scale, loaded in its epilogue, took 14-17 thousand cycles
// a tile on the H100).
// operator() may overwrite acc; it must consumer_sync() before it first writes the scratch, which
// the previous tile's call may still be reading.
// The ping-pong grid (wgmma_pingpong.cuh) hands one warpgroup's 64 x 256 tile (rows < 64, warps
// 0..3, thread 0..127, no scratch) to epilogues that declare `static constexpr bool kOneWarpgroup
// = true`: they read no other thread's values and never call consumer_sync(), since the other
// warpgroup runs its epilogue at another time.
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

  // Thread `consumer_thread` of the consumers (0..255; 0..127 in the ping-pong grid), lane `lane`.
  __device__ static FragmentTile of_thread(int consumer_thread, int lane, float* scratch_floats) {
    FragmentTile t;
    t.thread = consumer_thread;
    t.warp = consumer_thread / 32;
    t.first_row = t.warp * 16 + lane / 4;
    t.quad = lane % 4;
    t.scratch = scratch_floats;
    return t;
  }
  // The tile of indices (tm, tn) among tiles of bm x bn of an m x n C.
  __device__ void place(int tm, int tn, int bm, int bn, int m, int n) {
    row0 = tm * bm, col0 = tn * bn;
    rows = min(bm, m - row0), cols = min(bn, n - col0);
    tile_m = tm, tile_n = tn;
  }

  __device__ int row(int h) const { return first_row + 8 * h; }
  __device__ bool has_row(int h) const { return row(h) < rows; }
  __device__ int column(int j, int e) const { return 8 * j + 2 * quad + e; }
};

// The barrier of the two consumer warpgroups (named barrier 1; 0 is __syncthreads()).
__device__ inline void consumer_sync() { asm volatile("bar.sync 1, 256;\n" ::: "memory"); }

// v reduced by op over a row's quad (the four threads that hold the row).
template <class Op>
__device__ inline float quad_reduce(float v, Op op) {
  v = op(v, __shfl_xor_sync(0xffffffffu, v, 1));
  return op(v, __shfl_xor_sync(0xffffffffu, v, 2));
}

// kCount per-column parameters of the tile, one column a consumer thread (thread < cols) loaded
// before the mainloop: a few registers held through it. The epilogue publishes them to shared
// memory, where each thread reads the 64 columns it holds.
template <int kCount>
struct TileColumnValues {
  float v[kCount];

  // After a consumer_sync() that frees `to` (kCount x 256 floats): parameter k of column c at
  // to[256 k + c] for every c < cols, visible to every consumer thread on return.
  __device__ void publish(float* to, const FragmentTile& t) const {
    if (t.thread < t.cols)
#pragma unroll
      for (int k = 0; k < kCount; ++k) to[256 * k + t.thread] = v[k];
    consumer_sync();
  }
};

}  // namespace nb::gemm::sm90
