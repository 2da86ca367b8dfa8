// The Hopper GEMM with the store epilogue: C (and a bias) written as computed.
#include <stdexcept>

#include "kernels/gemm/sm90/wgmma_gemm.cuh"
#include "kernels/gemm/sm90/wgmma_gemm.hpp"
#include "kernels/gemm/store_epilogue.cuh"

namespace nb::gemm::sm90 {

template <MmaOverlap kOverlap>
void launch_wgmma_gemm_store(const Operands& op, const StoreEpilogue& epilogue, cudaStream_t stream) {
  const std::string refusal = wgmma_gemm_refusal(op);
  if (!refusal.empty()) throw std::invalid_argument(refusal);
  launch_wgmma_gemm<StoreEpilogue, kOverlap>(op, epilogue, stream);
}

template void launch_wgmma_gemm_store<MmaOverlap::none>(const Operands&, const StoreEpilogue&, cudaStream_t);
template void launch_wgmma_gemm_store<MmaOverlap::one_group>(const Operands&, const StoreEpilogue&, cudaStream_t);

}  // namespace nb::gemm::sm90
