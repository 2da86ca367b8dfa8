// The Hopper GEMM with the column-statistics epilogue (wgmma_column_stats.hpp). Built for sm_90a
// alone, with kernels/gemm/sm90/ (a *.sm90a.cu file anywhere in kernels/ is).
#include "kernels/gemm/sm90/wgmma_gemm.cuh"
#include "kernels/gemm_pipelines/epilogues.cuh"
#include "kernels/gemm_pipelines/gemm_bn/wgmma_column_stats.hpp"

namespace nb::gemm_bn {

static_assert(kWgmmaRowsPerTile == gemm::sm90::WgmmaTile::kBM, "the partials are one per GEMM tile row");

void launch_wgmma_column_stats(const gemm::Operands& op, const linear::dev::ColumnStatsEpilogue& epilogue,
                               cudaStream_t stream) {
  using namespace gemm::sm90;
  launch_wgmma_gemm<Tf32Inputs, linear::dev::ColumnStatsEpilogue, MmaOverlap::none, TileOrder::grouped>(op, epilogue,
                                                                                                         stream);
}

}  // namespace nb::gemm_bn
