// The Hopper GEMM with the store epilogue, in tf32 and bf16: C (and a bias) written as computed,
// from the staged tile (a CTA per tile) or from the accumulators (persistent, ping-pong).
#include <stdexcept>

#include "kernels/gemm/sm90/fragment_store.cuh"
#include "kernels/gemm/sm90/wgmma_gemm.cuh"
#include "kernels/gemm/sm90/wgmma_gemm.hpp"
#include "kernels/gemm/sm90/wgmma_pingpong.cuh"
#include "kernels/gemm/sm90/wgmma_persistent.cuh"
#include "kernels/gemm/store_epilogue.cuh"

namespace nb::gemm::sm90 {

namespace {

template <class Inputs, MmaOverlap kOverlap, TileOrder kOrder, WgmmaGrid kGrid>
void launch_store(const OperandsOf<typename Inputs::Element>& op, const StoreEpilogue& epilogue, cudaStream_t stream) {
  const std::string refusal = wgmma_operands_refusal(op);  // no driver call inside a timing loop
  if (!refusal.empty()) throw std::invalid_argument(refusal);
  if constexpr (kGrid == WgmmaGrid::persistent)
    launch_wgmma_persistent<Inputs, StoreFragment, kOverlap, kOrder>(op, StoreFragment{epilogue}, stream);
  else if constexpr (kGrid == WgmmaGrid::pingpong || kGrid == WgmmaGrid::pingpong_pair)
    launch_wgmma_pingpong<Inputs, StoreFragment, kOverlap, kOrder, kGrid == WgmmaGrid::pingpong_pair>(
        op, StoreFragment{epilogue}, stream);
  else
    launch_wgmma_gemm<Inputs, StoreEpilogue, kOverlap, kOrder>(op, epilogue, stream);
}

}  // namespace

template <MmaOverlap kOverlap, TileOrder kOrder, WgmmaGrid kGrid>
void launch_wgmma_gemm_store(const Operands& op, const StoreEpilogue& epilogue, cudaStream_t stream) {
  launch_store<Tf32Inputs, kOverlap, kOrder, kGrid>(op, epilogue, stream);
}

template <MmaOverlap kOverlap, TileOrder kOrder, WgmmaGrid kGrid>
void launch_wgmma_gemm_store(const Bf16Operands& op, const StoreEpilogue& epilogue, cudaStream_t stream) {
  launch_store<Bf16Inputs, kOverlap, kOrder, kGrid>(op, epilogue, stream);
}

#define NB_WGMMA_STORE(overlap, order, grid)                                                                   \
  template void launch_wgmma_gemm_store<MmaOverlap::overlap, TileOrder::order, WgmmaGrid::grid>(              \
      const Operands&, const StoreEpilogue&, cudaStream_t);                                                   \
  template void launch_wgmma_gemm_store<MmaOverlap::overlap, TileOrder::order, WgmmaGrid::grid>(              \
      const Bf16Operands&, const StoreEpilogue&, cudaStream_t);
NB_WGMMA_STORE(none, m_fastest, cta_per_tile)
NB_WGMMA_STORE(one_group, m_fastest, cta_per_tile)
NB_WGMMA_STORE(none, grouped, cta_per_tile)
NB_WGMMA_STORE(one_group, grouped, cta_per_tile)
NB_WGMMA_STORE(none, grouped, persistent)
NB_WGMMA_STORE(one_group, grouped, persistent)
NB_WGMMA_STORE(none, grouped, pingpong)
NB_WGMMA_STORE(one_group, grouped, pingpong)
NB_WGMMA_STORE(none, grouped, pingpong_pair)
NB_WGMMA_STORE(one_group, grouped, pingpong_pair)
#undef NB_WGMMA_STORE

}  // namespace nb::gemm::sm90
