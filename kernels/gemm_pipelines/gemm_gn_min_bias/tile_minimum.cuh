#pragma once
// What the variants whose GEMM epilogue does the GroupNorm and takes each row's minimum per tile
// share (fused_epilogue on the SIMT/mma.sync GEMM, wgmma_epilogue on the Hopper one): the rule
// that a tile holds whole groups, the epilogue, and the step after the GEMM.
#include <string>

#include "kernels/gemm_pipelines/epilogues.cuh"
#include "kernels/gemm_pipelines/gemm_gn_min_bias/spec.hpp"
#include "kernels/gemm_pipelines/linear_shape.hpp"
#include "kernels/gemm_pipelines/post_gemm.hpp"

namespace nb::gemm_gn_min_bias {

// Tiles of `tile_cols` columns must hold whole groups, unless one tile holds the row.
inline Support whole_groups_per_tile(const Problem& p, int tile_cols) {
  const linear::Shape s = linear::shape_of(p);
  const std::int64_t size = s.group_size();
  if (tile_cols % size != 0 && s.n > tile_cols)
    return Support::no("a group of " + std::to_string(size) + " channels would straddle tiles of " +
                       std::to_string(tile_cols) + " columns (the epilogue needs whole groups)");
  return Support::yes();
}

// Bias, GroupNorm and each row's minimum over the tile into partial_min (tiles_n, M); g is never written.
inline linear::dev::GroupNormMinEpilogue tile_minimum_epilogue(const Args& a, float* partial_min) {
  return {a.bias, a.gamma, a.beta, a.add_bias, partial_min, nullptr, a.m, a.n / a.groups, a.eps};
}

// After the GEMM: the minimum over the N tiles, plus the broadcast bias, into out.
inline void finish_from_tile_minima(const Args& a, const float* partial_min, int tiles_n, cudaStream_t s) {
  linear::launch_min_broadcast(partial_min, tiles_n, a.add_bias, a.out, a.m, a.n, s);
}

}  // namespace nb::gemm_gn_min_bias
