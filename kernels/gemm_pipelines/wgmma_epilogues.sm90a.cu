// The Hopper GEMM with the pipelines' epilogues (wgmma_epilogues.hpp): tf32, the grouped tile
// order, each stage given back once its MMAs are done. Built for sm_90a alone, with
// kernels/gemm/sm90/ (a *.sm90a.cu file anywhere in kernels/ is).
#include "kernels/gemm/sm90/wgmma_gemm.cuh"
#include "kernels/gemm_pipelines/epilogues.cuh"
#include "kernels/gemm_pipelines/wgmma_epilogues.hpp"

namespace nb::linear {
namespace {

template <class Epilogue>
void launch_on_hopper(const gemm::Operands& op, const Epilogue& epilogue, cudaStream_t stream) {
  using namespace gemm::sm90;
  launch_wgmma_gemm<Tf32Inputs, Epilogue, MmaOverlap::none, TileOrder::grouped>(op, epilogue, stream);
}

}  // namespace

void launch_wgmma(const gemm::Operands& op, const dev::ColumnStatsEpilogue& epilogue, cudaStream_t stream) {
  launch_on_hopper(op, epilogue, stream);
}

void launch_wgmma(const gemm::Operands& op, const dev::GroupNormMinEpilogue& epilogue, cudaStream_t stream) {
  launch_on_hopper(op, epilogue, stream);
}

}  // namespace nb::linear
