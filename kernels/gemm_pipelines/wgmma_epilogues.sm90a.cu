// The Hopper GEMM with the pipelines' epilogues (wgmma_epilogues.hpp): tf32 or bf16, persistent,
// the grouped tile order (or, for BatchNorm whole in the epilogue, a team of CTAs a column strip),
// each stage given back once its MMAs are done, the epilogues fed from the accumulators. Built for
// sm_90a alone, with kernels/gemm/sm90/ (a *.sm90a.cu file anywhere in kernels/ is).
#include <stdexcept>
#include <string>

#include "kernels/gemm/sm90/wgmma_persistent.cuh"
#include "kernels/gemm_pipelines/fragment_epilogues.cuh"
#include "kernels/gemm_pipelines/wgmma_epilogues.hpp"
#include "kernels/gemm_pipelines/whole_column_fragment.cuh"

namespace nb::linear {
namespace {

template <class Inputs, class Fragment>
void launch_on_hopper(const gemm::OperandsOf<typename Inputs::Element>& op, const Fragment& epilogue,
                      cudaStream_t stream) {
  using namespace gemm::sm90;
  launch_wgmma_persistent<Inputs, Fragment, MmaOverlap::none, TileOrder::grouped>(op, epilogue, stream);
}

void require_runnable(const dev::GroupNormMinEpilogue& e) {
  if (const std::string why = wgmma_groupnorm_refusal(e.group_size); !why.empty()) throw std::invalid_argument(why);
  if (e.out != nullptr || e.partial_min == nullptr)
    throw std::invalid_argument("the Hopper GEMM's GroupNorm epilogue writes per-tile minima (partial_min), not out");
}

}  // namespace

std::string wgmma_groupnorm_refusal(int group_size) {
  if (dev::GroupNormMinFragment::runs(group_size)) return "";
  return "groups of " + std::to_string(group_size) +
         " channels: the Hopper GEMM's epilogue normalizes groups of whole runs of 8 columns that divide its 256 "
         "(8, 16, ..., 256)";
}

void launch_wgmma(const gemm::Operands& op, const dev::ColumnStatsEpilogue& epilogue, cudaStream_t stream) {
  launch_on_hopper<gemm::sm90::Tf32Inputs>(op, dev::ColumnStatsFragment{epilogue}, stream);
}

void launch_wgmma(const gemm::Bf16Operands& op, const dev::ColumnStatsEpilogue& epilogue, cudaStream_t stream) {
  launch_on_hopper<gemm::sm90::Bf16Inputs>(op, dev::ColumnStatsFragment{epilogue}, stream);
}

void launch_wgmma(const gemm::Operands& op, const dev::GroupNormMinEpilogue& epilogue, cudaStream_t stream) {
  require_runnable(epilogue);
  launch_on_hopper<gemm::sm90::Tf32Inputs>(op, dev::GroupNormMinFragment{epilogue}, stream);
}

void launch_wgmma(const gemm::Bf16Operands& op, const dev::GroupNormMinEpilogue& epilogue, cudaStream_t stream) {
  require_runnable(epilogue);
  launch_on_hopper<gemm::sm90::Bf16Inputs>(op, dev::GroupNormMinFragment{epilogue}, stream);
}

void launch_wgmma_teams(const gemm::Operands& op, const dev::TeamBnEpilogue& epilogue, cudaStream_t stream) {
  gemm::sm90::launch_wgmma_persistent_teams<gemm::sm90::Tf32Inputs, dev::TeamBnFragment, gemm::sm90::MmaOverlap::none>(
      op, dev::TeamBnFragment{epilogue}, stream);
}

void launch_wgmma_teams(const gemm::Bf16Operands& op, const dev::TeamBnEpilogue& epilogue, cudaStream_t stream) {
  gemm::sm90::launch_wgmma_persistent_teams<gemm::sm90::Bf16Inputs, dev::TeamBnFragment, gemm::sm90::MmaOverlap::none>(
      op, dev::TeamBnFragment{epilogue}, stream);
}

}  // namespace nb::linear
