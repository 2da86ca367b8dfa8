#pragma once
// The Hopper GEMM's host face (the kernel is wgmma_gemm.cuh): whether it can run a GEMM here,
// and its launch with the store epilogue, for the GEMM tests and gemm_configs.
#include <cuda_runtime.h>

#include <string>

#include "kernels/gemm/operands.hpp"
#include "kernels/gemm/sm90/tile_order.hpp"

namespace nb::gemm {
struct StoreEpilogue;
}

namespace nb::gemm::sm90 {

// The output tile one CTA computes (the kernel's WgmmaTile), for the refusal's tile count.
inline constexpr int kWgmmaTileM = 128, kWgmmaTileN = 256;

// Empty when the current device runs the Hopper GEMM (an sm_90 GPU); else why not.
std::string wgmma_device_refusal();

// Empty when the Hopper GEMM can compute `op` on the current device; else why not: the device's
// refusal, rows of K not a multiple of 16 bytes (K % 4 in fp32, K % 8 in bf16) or an operand not
// 16-byte aligned (TMA's rules), an empty shape, more tiles than a 1-D grid holds.
std::string wgmma_gemm_refusal(const Operands& op);
std::string wgmma_gemm_refusal(const Bf16Operands& op);

// When a consumer gives a stage's buffers back to the producer: after waiting for its MMAs
// (none in flight while the next stage waits), or once the next stage's MMAs are issued (one
// group in flight: the tensor cores never wait for the issuing warps).
enum class MmaOverlap { none, one_group };

// C = A B^T through the store epilogue, asynchronous on `stream`, in tf32 (fp32 operands) or
// bf16; throws std::invalid_argument with the refusal when there is one. Instantiated for both
// overlaps and both tile orders.
template <MmaOverlap kOverlap, TileOrder kOrder>
void launch_wgmma_gemm_store(const Operands& op, const StoreEpilogue& epilogue, cudaStream_t stream);
template <MmaOverlap kOverlap, TileOrder kOrder>
void launch_wgmma_gemm_store(const Bf16Operands& op, const StoreEpilogue& epilogue, cudaStream_t stream);

}  // namespace nb::gemm::sm90
