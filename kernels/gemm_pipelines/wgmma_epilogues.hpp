#pragma once
// The Hopper GEMM (kernels/gemm/sm90/) with the pipelines' epilogue policies, in tf32 or bf16:
// C = x W^T tile by tile into the epilogue, on the persistent grid whose epilogues read the
// accumulators in registers (fragment_epilogues.cuh), asynchronous on `stream`. Defined in
// wgmma_epilogues.sm90a.cu, which the sm_90a library builds (the kernel cannot be instantiated in
// a file built for the other architectures). The caller has checked the operands (require_wgmma,
// wgmma_support.hpp) and, for GroupNorm, the group size (wgmma_groupnorm_refusal). Per-tile
// partials are indexed by tile_m (BatchNorm's column statistics, one per 128 rows) or tile_n
// (GroupNorm's row minimum, one per 256 columns): gemm::sm90::wgmma_tiles_m and _n.
#include <cuda_runtime.h>

#include <string>

#include "kernels/gemm/operands.hpp"
#include "kernels/gemm/sm90/wgmma_gemm.hpp"

namespace nb::linear::dev {
struct ColumnStatsEpilogue;
struct GroupNormMinEpilogue;
struct TeamBnEpilogue;
}  // namespace nb::linear::dev

namespace nb::linear {

void launch_wgmma(const gemm::Operands& op, const dev::ColumnStatsEpilogue& epilogue, cudaStream_t stream);
void launch_wgmma(const gemm::Bf16Operands& op, const dev::ColumnStatsEpilogue& epilogue, cudaStream_t stream);
void launch_wgmma(const gemm::Operands& op, const dev::GroupNormMinEpilogue& epilogue, cudaStream_t stream);
void launch_wgmma(const gemm::Bf16Operands& op, const dev::GroupNormMinEpilogue& epilogue, cudaStream_t stream);

// BatchNorm whole in the epilogue, on the persistent grid in teams of CTAs that each hold every M
// tile of a column strip (M <= 128 kMaxTeamTilesM): y written from the accumulators; the caller
// zeroes epilogue.arrivals before each launch. Throws nb::Unsupported when M is larger.
void launch_wgmma_teams(const gemm::Operands& op, const dev::TeamBnEpilogue& epilogue, cudaStream_t stream);
void launch_wgmma_teams(const gemm::Bf16Operands& op, const dev::TeamBnEpilogue& epilogue, cudaStream_t stream);

// Empty when the GroupNorm epilogue runs groups of `group_size` channels from the accumulators
// (whole runs of 8 columns that divide a tile's 256); else why not.
std::string wgmma_groupnorm_refusal(int group_size);

}  // namespace nb::linear
