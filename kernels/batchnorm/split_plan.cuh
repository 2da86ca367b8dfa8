#pragma once
// How the grid-level BatchNorm variants cut the statistics pass. SplitStyle::tuned (the split
// variants): 2d (NCHW) runs of H*W of at least 32 KB in address order, a block per piece of a
// run, float4 where aligned; shorter runs as a channel shared by `slices` blocks; the 1d (N, C)
// layout as tiles of 32 threads on consecutive channels x 8 threads on rows, the rows cut into
// `slices`. SplitStyle::plain (welford): scalar loads, channel slices for every layout.
// workspace_bytes() and launch() both derive from this plan.
#include <cuda_runtime.h>

#include <algorithm>

#include "kernels/batchnorm/device.cuh"

namespace nb::bn::dev {

// About four waves of 8 resident 256-thread blocks on a 132-SM H100.
inline constexpr long long kTargetBlocks = 4LL * 132 * 8;
inline constexpr int kThreads = 256;
inline constexpr int kTileX = 32, kTileY = 8;  // rows layout: channels x rows
inline constexpr long long kPieceBytes = 64 * 1024;  // run order: at most 64 KB per block

enum class SplitStyle { plain, tuned };

struct SplitPlan {
  bool rows = false;    // 1d layout, threads on consecutive channels
  int vec = 1;          // 4: 16-byte loads (needs aligned tensors and hw % 4 == 0, or C % 4 == 0 for rows)
  unsigned slices = 1;  // blocks per channel (2d) or row slices (rows)
  ChannelGeom geom;     // 2d: channel geometry in vectors; rows: vector columns x rows
  dim3 grid;
};

// aligned16: the (N, C, HW) tensors the passes read and write start on 16 bytes (float4 loads need
// it as well as the shape; --misaligned tensors take single floats).
__host__ inline SplitPlan split_plan(long long n, long long c, long long hw, SplitStyle style, bool aligned16) {
  SplitPlan p;
  const bool tuned = style == SplitStyle::tuned;
  p.rows = tuned && hw == 1;
  if (p.rows) {
    p.vec = aligned16 && c % 4 == 0 ? 4 : 1;
    const long long cols = c / p.vec, groups = nb::dev::ceil_div(cols, kTileX);
    p.slices = unsigned(std::clamp(nb::dev::ceil_div(kTargetBlocks, groups), 1LL, std::max(1LL, n / (kTileY * 4))));
    p.slices = std::min(p.slices, 65535u);
    p.geom = channel_geom(n, cols, 1, 1, p.slices);
    p.grid = dim3(unsigned(groups), p.slices);
  } else if (tuned && hw * 4 >= kPieceBytes / 2) {
    // Runs of at least 32 KB: blocks in address order, each a piece of one (n, c) run.
    p.vec = aligned16 && hw % 4 == 0 ? 4 : 1;
    const long long hwv = hw / p.vec, pieces = nb::dev::ceil_div(hwv, kPieceBytes / (4 * p.vec));
    p.slices = unsigned(n * pieces);
    p.geom = channel_geom(n, c, hw, p.vec, p.slices);
    p.geom.pieces = unsigned(pieces);
    p.geom.piece = unsigned(nb::dev::ceil_div(hwv, pieces));
    p.grid = dim3(unsigned(n * c * pieces));
  } else {
    p.vec = aligned16 && tuned && hw % 4 == 0 ? 4 : 1;
    const long long mv = n * hw / p.vec;
    p.slices = unsigned(std::clamp(nb::dev::ceil_div(kTargetBlocks, c), 1LL, std::max(1LL, mv / (kThreads * 4))));
    p.geom = channel_geom(n, c, hw, p.vec, p.slices);
    p.grid = dim3(unsigned(c * p.slices));
  }
  return p;
}

// The most slices a channel takes in either plan the shape can get (aligned tensors or not): what
// the workspace of partials is sized for before the pointers are known.
__host__ inline unsigned max_split_slices(long long n, long long c, long long hw, SplitStyle style) {
  return std::max(split_plan(n, c, hw, style, true).slices, split_plan(n, c, hw, style, false).slices);
}

// What block b of a 2d statistics pass reads (vectors [j0, j1) of channel c) and which partial
// it writes (part[c * slices + k]). One slice per block: slice b % slices of channel b / slices.
// Run order: piece b % pieces of run r = b / pieces = n * C + c, so that the blocks sweep memory in
// address order (what DRAM serves fastest); its partial is number n * pieces + piece of channel c.
struct BlockWork {
  long long c;
  unsigned j0, j1;
  long long part;
};

__device__ __forceinline__ BlockWork block_work(const ChannelGeom& g, long long b) {
  if (g.pieces == 0) {
    const long long c = b / g.slices;
    const unsigned k = unsigned(b % g.slices);
    return {c, g.begin(k), g.begin(k + 1), b};
  }
  const long long r = b / g.pieces, c = r % g.c_count;
  const unsigned p = unsigned(b % g.pieces), n = unsigned(r / g.c_count);
  const unsigned j0 = n * g.hwv + p * g.piece, run_end = (n + 1) * g.hwv;
  return {c, j0, j0 + g.piece < run_end ? j0 + g.piece : run_end, c * g.slices + (long long)n * g.pieces + p};
}

}  // namespace nb::bn::dev
