// The Hopper GEMM with the store epilogue: C (and a bias) written as computed.
#include <stdexcept>

#include "kernels/gemm/sm90/wgmma_gemm.cuh"
#include "kernels/gemm/sm90/wgmma_gemm.hpp"
#include "kernels/gemm/store_epilogue.cuh"

namespace nb::gemm::sm90 {

template <MmaOverlap kOverlap, TileOrder kOrder>
void launch_wgmma_gemm_store(const Operands& op, const StoreEpilogue& epilogue, cudaStream_t stream) {
  const std::string refusal = wgmma_gemm_refusal(op);
  if (!refusal.empty()) throw std::invalid_argument(refusal);
  launch_wgmma_gemm<StoreEpilogue, kOverlap, kOrder>(op, epilogue, stream);
}

#define NB_WGMMA_STORE(overlap, order)                                                               \
  template void launch_wgmma_gemm_store<MmaOverlap::overlap, TileOrder::order>(const Operands&,      \
                                                                               const StoreEpilogue&, \
                                                                               cudaStream_t);
NB_WGMMA_STORE(none, m_fastest)
NB_WGMMA_STORE(one_group, m_fastest)
NB_WGMMA_STORE(none, grouped)
NB_WGMMA_STORE(one_group, grouped)
#undef NB_WGMMA_STORE

}  // namespace nb::gemm::sm90
