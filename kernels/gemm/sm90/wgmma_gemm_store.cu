// The Hopper GEMM with the store epilogue, in tf32 and bf16: C (and a bias) written as computed.
#include <stdexcept>

#include "kernels/gemm/sm90/wgmma_gemm.cuh"
#include "kernels/gemm/sm90/wgmma_gemm.hpp"
#include "kernels/gemm/store_epilogue.cuh"

namespace nb::gemm::sm90 {

namespace {

template <class Inputs, MmaOverlap kOverlap, TileOrder kOrder>
void launch_store(const OperandsOf<typename Inputs::Element>& op, const StoreEpilogue& epilogue, cudaStream_t stream) {
  const std::string refusal = wgmma_operands_refusal(op);  // no driver call inside a timing loop
  if (!refusal.empty()) throw std::invalid_argument(refusal);
  launch_wgmma_gemm<Inputs, StoreEpilogue, kOverlap, kOrder>(op, epilogue, stream);
}

}  // namespace

template <MmaOverlap kOverlap, TileOrder kOrder>
void launch_wgmma_gemm_store(const Operands& op, const StoreEpilogue& epilogue, cudaStream_t stream) {
  launch_store<Tf32Inputs, kOverlap, kOrder>(op, epilogue, stream);
}

template <MmaOverlap kOverlap, TileOrder kOrder>
void launch_wgmma_gemm_store(const Bf16Operands& op, const StoreEpilogue& epilogue, cudaStream_t stream) {
  launch_store<Bf16Inputs, kOverlap, kOrder>(op, epilogue, stream);
}

#define NB_WGMMA_STORE(overlap, order, operands)                                                               \
  template void launch_wgmma_gemm_store<MmaOverlap::overlap, TileOrder::order>(const operands&,                \
                                                                               const StoreEpilogue&,          \
                                                                               cudaStream_t);
NB_WGMMA_STORE(none, m_fastest, Operands)
NB_WGMMA_STORE(one_group, m_fastest, Operands)
NB_WGMMA_STORE(none, grouped, Operands)
NB_WGMMA_STORE(one_group, grouped, Operands)
NB_WGMMA_STORE(none, m_fastest, Bf16Operands)
NB_WGMMA_STORE(one_group, m_fastest, Bf16Operands)
NB_WGMMA_STORE(none, grouped, Bf16Operands)
NB_WGMMA_STORE(one_group, grouped, Bf16Operands)
#undef NB_WGMMA_STORE

}  // namespace nb::gemm::sm90
