#pragma once
// The Hopper GEMM (kernels/gemm/sm90/) with the BatchNorm pipelines' column-statistics epilogue,
// in tf32: defined in wgmma_column_stats.sm90a.cu, which the sm_90a library builds.
#include <cuda_runtime.h>

#include "kernels/gemm/operands.hpp"

namespace nb::linear::dev {
struct ColumnStatsEpilogue;
}

namespace nb::gemm_bn {

inline constexpr int kWgmmaRowsPerTile = 128;  // the Hopper GEMM's BM: one Welford partial per tile row

// C = x W^T into the epilogue (h stored, per-tile column statistics), asynchronous on `stream`. The
// caller has checked gemm::sm90::wgmma_gemm_refusal(op).
void launch_wgmma_column_stats(const gemm::Operands& op, const linear::dev::ColumnStatsEpilogue& epilogue,
                               cudaStream_t stream);

}  // namespace nb::gemm_bn
