#pragma once
// How the split variants cut the work: a channel shared by `slices` blocks (2d, NCHW) or, for the
// 1d (N, C) layout, tiles of 32 threads on consecutive channels x 8 threads on rows, with the rows
// cut into `slices`. workspace_bytes() and launch() both derive from this plan.
#include <cuda_runtime.h>

#include <algorithm>

#include "kernels/batchnorm_common/device.cuh"

namespace nb::bn::dev {

// About four waves of 8 resident 256-thread blocks on a 132-SM H100.
inline constexpr long long kTargetBlocks = 4LL * 132 * 8;
inline constexpr int kThreads = 256;
inline constexpr int kTileX = 32, kTileY = 8;  // rows layout: channels x rows

struct SplitPlan {
  bool rows = false;    // 1d layout, threads on consecutive channels
  int vec = 1;          // 4: 16-byte loads (needs hw % 4 == 0, or C % 4 == 0 for rows)
  unsigned slices = 1;  // blocks per channel (2d) or row slices (rows)
  ChannelGeom geom;     // 2d: channel geometry in vectors; rows: vector columns x rows
  dim3 grid;
};

__host__ inline SplitPlan split_plan(long long n, long long c, long long hw, bool use_rows, bool use_vec) {
  SplitPlan p;
  p.rows = use_rows && hw == 1;
  if (p.rows) {
    p.vec = use_vec && c % 4 == 0 ? 4 : 1;
    const long long cols = c / p.vec, groups = nb::dev::ceil_div(cols, kTileX);
    p.slices = unsigned(std::clamp(nb::dev::ceil_div(kTargetBlocks, groups), 1LL, std::max(1LL, n / (kTileY * 4))));
    p.slices = std::min(p.slices, 65535u);
    p.geom = channel_geom(n, cols, 1, 1, p.slices);
    p.grid = dim3(unsigned(groups), p.slices);
  } else {
    p.vec = use_vec && hw % 4 == 0 ? 4 : 1;
    const long long mv = n * hw / p.vec;
    p.slices = unsigned(std::clamp(nb::dev::ceil_div(kTargetBlocks, c), 1LL, std::max(1LL, mv / (kThreads * 4))));
    p.geom = channel_geom(n, c, hw, p.vec, p.slices);
    p.grid = dim3(unsigned(c * p.slices));
  }
  return p;
}

}  // namespace nb::bn::dev
