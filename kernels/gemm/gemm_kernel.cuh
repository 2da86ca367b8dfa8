#pragma once
// The GEMM kernel template: a mainloop computes one CTA tile, the tile is staged row-major in
// shared memory, and an epilogue policy consumes it (tile_view.cuh); plus its host launcher.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "harness/cuda_check.hpp"
#include "kernels/gemm/operand_tiles.cuh"
#include "kernels/gemm/operands.hpp"
#include "kernels/gemm/simt_mainloop.cuh"
#include "kernels/gemm/tf32_mainloop.cuh"
#include "kernels/gemm/tile_view.cuh"

namespace nb::gemm {

// Named configurations. SIMT ones are IEEE fp32 (FFMA); Tf32 ones round operands to tf32.
using SimtLarge = SimtMainloop<128, 128, 8, 8, 8, 256, 2>;     // big problems, 2 CTAs per SM
using SimtLargeK16 = SimtMainloop<128, 128, 16, 8, 8, 256, 1>; // deeper stages, 1 CTA per SM
using SimtColumnStrip = SimtMainloop<128, 32, 16, 8, 4, 128>;  // tall, narrow tiles (small N)
using SimtSquare = SimtMainloop<64, 64, 16, 8, 4, 128>;        // mid-size problems
using SimtRowStrip32 = SimtMainloop<32, 128, 16, 4, 8, 128>;   // short, wide tiles
using SimtRowStrip = SimtMainloop<16, 256, 16, 4, 8, 128>;     // few rows (small M)
using Tf32Large = Tf32Mainloop<128, 128, 32, 2, 4, 3>;         // 8 warps of 64 x 32
using Tf32Small = Tf32Mainloop<64, 64, 32, 2, 2, 3>;           // 4 warps of 32 x 32

// Candidates for large problems, timed against the above by apps/gemm_configs.cu. Registers and
// CTAs per SM from ptxas for sm_90 (the kernel with the store epilogue).
// SIMT, 8 x 16 per thread: 6 float4 shared loads per 128 FFMA (8 x 8: 4 per 64); 223-255
// registers, so 1 CTA (8 warps) per SM.
using SimtWide = SimtMainloop<128, 256, 8, 8, 16, 256, 1>;     // warps of 64 x 64
using SimtWideK16 = SimtMainloop<128, 256, 16, 8, 16, 256, 1>; // half the barriers
using SimtTall = SimtMainloop<256, 128, 8, 16, 8, 256, 1>;     // warps of 128 x 32
// TF32 with 64 x 64 warp tiles: 8 ldmatrix.x4 per 32 mma (64 x 32: 6 per 16), ~205 registers.
using Tf32Wide = Tf32Mainloop<128, 256, 32, 2, 4, 3>;          // 166 KB, 1 CTA per SM
using Tf32Wide4 = Tf32Mainloop<128, 256, 32, 2, 4, 4>;         // 221 KB, 1 CTA per SM
using Tf32WideK16 = Tf32Mainloop<128, 256, 16, 2, 4, 5>;       // 154 KB, 1 CTA per SM
using Tf32Tall = Tf32Mainloop<256, 128, 32, 4, 2, 3>;          // 166 KB, 1 CTA per SM
using Tf32Large64 = Tf32Mainloop<128, 128, 32, 2, 2, 3, 2>;    // 4 warps, 111 KB, 2 CTAs per SM

// Grid extents: tiles along M (blockIdx.x, fastest) and along N (blockIdx.y).
template <class Mainloop>
constexpr int tiles_m(int m) {
  return (m + Mainloop::kBM - 1) / Mainloop::kBM;
}
template <class Mainloop>
constexpr int tiles_n(int n) {
  return (n + Mainloop::kBN - 1) / Mainloop::kBN;
}

// Dynamic shared memory: the mainloop's buffers and the staged tile share the same floats (the
// tile is written after the mainloop is done), then the epilogue's scratch, 16-byte aligned.
template <class Mainloop>
constexpr int staged_tile_floats() {
  return Mainloop::kBM * Mainloop::kStagedLd;
}
template <class Mainloop>
constexpr int scratch_offset_floats() {
  const int shared = Mainloop::kSmemFloats > staged_tile_floats<Mainloop>() ? Mainloop::kSmemFloats
                                                                            : staged_tile_floats<Mainloop>();
  return (shared + 3) / 4 * 4;
}
template <class Mainloop, class Epilogue>
constexpr std::size_t gemm_smem_bytes() {
  return std::size_t(scratch_offset_floats<Mainloop>() + Epilogue::kScratchFloats) * sizeof(float);
}

// After the mainloop: the accumulators become the row-major staged tile in the mainloop's
// shared memory, and the epilogue consumes it.
template <class Mainloop, class Epilogue>
__device__ void stage_and_finish(const typename Mainloop::Accumulators& acc, float* smem, int row0, int col0, int m,
                                 int n, const Epilogue& epilogue) {
  __syncthreads();  // the mainloop's buffers become the staged tile
  Mainloop::stage(acc, smem);
  __syncthreads();
  // The view is built here, not by staged_tile_view: through that helper nvcc addresses the staged
  // tile in 64-bit generic arithmetic in these kernels, which moved the SIMT fp32 fused_epilogue
  // pipelines by -6% (BatchNorm) and +10% (GroupNorm) on the H100 at 1024x8192x8192.
  TileView view;
  view.s = smem;
  view.ld = Mainloop::kStagedLd;
  view.row0 = row0, view.col0 = col0;
  view.rows = min(Mainloop::kBM, m - row0), view.cols = min(Mainloop::kBN, n - col0);
  view.tile_m = blockIdx.x, view.tile_n = blockIdx.y;
  view.scratch = smem + scratch_offset_floats<Mainloop>();
  epilogue(view);
}

// kVector: K % 4 == 0 and A, B 16-byte aligned (launch_gemm decides).
template <class Mainloop, class Epilogue, bool kVector>
__global__ void __launch_bounds__(Mainloop::kThreads, Mainloop::kMinBlocks) gemm_kernel(Operands op, Epilogue epilogue) {
  extern __shared__ float4 gemm_smem_raw[];
  float* smem = reinterpret_cast<float*>(gemm_smem_raw);
  const int row0 = blockIdx.x * Mainloop::kBM, col0 = blockIdx.y * Mainloop::kBN;
  typename Mainloop::Accumulators acc;
  Mainloop::template run<kVector>(op, row0, col0, smem, acc);
  stage_and_finish<Mainloop>(acc, smem, row0, col0, op.m, op.n, epilogue);
}

// The same with operand policies (operand_tiles.cuh): layouts other than K-major, prologues.
template <class Mainloop, class OperandA, class OperandB, class Epilogue, bool kVector>
__global__ void __launch_bounds__(Mainloop::kThreads, Mainloop::kMinBlocks)
    operand_gemm_kernel(OperandA a, OperandB b, int m, int n, int k, Epilogue epilogue) {
  extern __shared__ float4 gemm_smem_raw[];
  float* smem = reinterpret_cast<float*>(gemm_smem_raw);
  const int row0 = blockIdx.x * Mainloop::kBM, col0 = blockIdx.y * Mainloop::kBN;
  typename Mainloop::Accumulators acc;
  Mainloop::template run<kVector>(a, b, k, row0, col0, smem, acc);
  stage_and_finish<Mainloop>(acc, smem, row0, col0, m, n, epilogue);
}

// Once per instantiation: allow its dynamic shared memory beyond the default 48 KB.
template <class Mainloop, class Epilogue, bool kVector>
void configure_gemm_kernel() {
  static const bool done = [] {
    NB_CUDA_CHECK(cudaFuncSetAttribute(gemm_kernel<Mainloop, Epilogue, kVector>,
                                       cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       int(gemm_smem_bytes<Mainloop, Epilogue>())));
    return true;
  }();
  (void)done;
}

// The vector path (16-byte loads): K % 4 == 0 and A, B 16-byte aligned.
inline bool vector_path(const Operands& op) {
  return op.k % 4 == 0 && reinterpret_cast<std::uintptr_t>(op.a) % 16 == 0 &&
         reinterpret_cast<std::uintptr_t>(op.b) % 16 == 0;
}

// C = A B^T for any m, n, k >= 1, tile by tile into `epilogue`. Asynchronous on `stream`.
template <class Mainloop, class Epilogue>
void launch_gemm(const Operands& op, const Epilogue& epilogue, cudaStream_t stream) {
  if (op.m <= 0 || op.n <= 0) return;
  const dim3 grid(unsigned(tiles_m<Mainloop>(op.m)), unsigned(tiles_n<Mainloop>(op.n)));
  const dim3 block(Mainloop::kThreads);
  const std::size_t smem = gemm_smem_bytes<Mainloop, Epilogue>();
  if (vector_path(op)) {
    configure_gemm_kernel<Mainloop, Epilogue, true>();
    gemm_kernel<Mainloop, Epilogue, true><<<grid, block, smem, stream>>>(op, epilogue);
  } else {
    configure_gemm_kernel<Mainloop, Epilogue, false>();
    gemm_kernel<Mainloop, Epilogue, false><<<grid, block, smem, stream>>>(op, epilogue);
  }
  NB_CHECK_LAUNCH();
}

template <class Mainloop, class OperandA, class OperandB, class Epilogue, bool kVector>
void configure_operand_gemm_kernel() {
  static const bool done = [] {
    NB_CUDA_CHECK(cudaFuncSetAttribute(operand_gemm_kernel<Mainloop, OperandA, OperandB, Epilogue, kVector>,
                                       cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       int(gemm_smem_bytes<Mainloop, Epilogue>())));
    return true;
  }();
  (void)done;
}

// C (m x n) = A B^T over k with operand policies, tile by tile into `epilogue`; the vector path
// when both sources take 16-byte loads. Asynchronous on `stream`.
template <class Mainloop, class OperandA, class OperandB, class Epilogue>
void launch_operand_gemm(const OperandA& a, const OperandB& b, int m, int n, int k, const Epilogue& epilogue,
                         cudaStream_t stream) {
  if (m <= 0 || n <= 0) return;
  const dim3 grid(unsigned(tiles_m<Mainloop>(m)), unsigned(tiles_n<Mainloop>(n)));
  const std::size_t smem = gemm_smem_bytes<Mainloop, Epilogue>();
  if (a.vector_ok() && b.vector_ok()) {
    configure_operand_gemm_kernel<Mainloop, OperandA, OperandB, Epilogue, true>();
    operand_gemm_kernel<Mainloop, OperandA, OperandB, Epilogue, true>
        <<<grid, dim3(Mainloop::kThreads), smem, stream>>>(a, b, m, n, k, epilogue);
  } else {
    configure_operand_gemm_kernel<Mainloop, OperandA, OperandB, Epilogue, false>();
    operand_gemm_kernel<Mainloop, OperandA, OperandB, Epilogue, false>
        <<<grid, dim3(Mainloop::kThreads), smem, stream>>>(a, b, m, n, k, epilogue);
  }
  NB_CHECK_LAUNCH();
}

}  // namespace nb::gemm
