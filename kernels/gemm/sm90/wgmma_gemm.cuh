#pragma once
// The Hopper GEMM, C = A B^T in tf32 or bf16 (wgmma_inputs.cuh) with fp32 accumulation, a CTA per
// 128 x 256 tile: the mainloop of wgmma_mainloop.cuh (one producer thread, a 4-stage TMA ring, two
// consumer warpgroups; a stage goes back when its MMAs are done, at once or with the next stage's
// MMAs in flight, kOverlap), then the tile staged row-major in the ring and handed to an epilogue
// policy (tile_view.cuh). A 1-D grid mapped to tiles in kOrder (tile_order.hpp). Included only by
// files built for sm_90a: kernels/gemm/sm90/*.cu and any *.sm90a.cu (kernels/CMakeLists.txt).
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "harness/cuda_check.hpp"
#include "kernels/primitives/smem_opt_in.hpp"
#include "kernels/gemm/operands.hpp"
#include "kernels/gemm/sm90/tensor_map.hpp"
#include "kernels/gemm/sm90/tile_order.hpp"
#include "kernels/gemm/sm90/wgmma_gemm.hpp"
#include "kernels/gemm/sm90/wgmma_mainloop.cuh"
#include "kernels/gemm/tile_view.cuh"

namespace nb::gemm::sm90 {

inline constexpr int kStagedLd = WgmmaTile::kBN + 8;  // float2 stores of a half-warp land in 32 distinct banks
static_assert(WgmmaTile::kBM * kStagedLd * 4 <= WgmmaTile::kRingBytes, "the staged tile reuses the ring");

// Dynamic shared memory: the ring (the staged tile after the mainloop) and its barriers, then the
// epilogue's scratch.
template <class Epilogue>
constexpr std::size_t wgmma_gemm_smem_bytes() {
  return wgmma_ring_smem_bytes() + std::size_t(Epilogue::kScratchFloats) * 4;
}

// Thread t of consumer warpgroup `consumer` writes its accumulators to the row-major tile.
__device__ inline void stage_accumulators(const float (&acc)[128], float* tile, int consumer) {
  const int t = threadIdx.x % 128, warp = t / 32, lane = t % 32;
  const int row = consumer * 64 + warp * 16 + lane / 4;
  for (int j = 0; j < 32; ++j) {
    const int col = 8 * j + 2 * (lane % 4);
    *reinterpret_cast<float2*>(&tile[row * kStagedLd + col]) = make_float2(acc[4 * j], acc[4 * j + 1]);
    *reinterpret_cast<float2*>(&tile[(row + 8) * kStagedLd + col]) = make_float2(acc[4 * j + 2], acc[4 * j + 3]);
  }
}

template <class Inputs, class Epilogue, MmaOverlap kOverlap, TileOrder kOrder>
__global__ void __launch_bounds__(WgmmaTile::kThreads, 1)
    wgmma_gemm_kernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map, int m,
                      int n, int k, Epilogue epilogue) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using T = WgmmaTile;
  extern __shared__ unsigned char wgmma_smem_raw[];
  const WgmmaRing ring = WgmmaRing::in(wgmma_smem_raw);
  const int warpgroup = threadIdx.x / 128;
  const TileCoord tile_id = tile_at<kOrder>(int(blockIdx.x), wgmma_tiles_m(m), wgmma_tiles_n(n));
  const int row0 = tile_id.m * T::kBM, col0 = tile_id.n * T::kBN;
  const int k_blocks = wgmma_k_blocks<Inputs>(k);

  if (threadIdx.x == 0) ring.init();
  __syncthreads();

  float acc[128];
  int it = 0;
  if (warpgroup == 0) {
    if (threadIdx.x == 0) produce_tile<Inputs>(ring, &a_map, &b_map, row0, col0, k_blocks, it);
  } else {
    consume_tile<Inputs, kOverlap>(ring, acc, warpgroup - 1, k_blocks, it);
  }

  __syncthreads();  // every load consumed and every wgmma retired: the ring becomes the staged tile
  float* tile = reinterpret_cast<float*>(ring.base);
  if (warpgroup > 0) stage_accumulators(acc, tile, warpgroup - 1);
  __syncthreads();
  epilogue(staged_tile_view(tile, kStagedLd, T::kBM, T::kBN, row0, col0, tile_id.m, tile_id.n, m, n,
                            reinterpret_cast<float*>(ring.after_barriers())));
#else
  __trap();  // not an sm_90a build of this file: nothing here runs
#endif
}

// C = A B^T tile by tile into `epilogue`, asynchronous on `stream`. The caller has checked that
// wgmma_device_refusal() and wgmma_operands_refusal(op) are empty (throws std::runtime_error if the driver refuses a tensor map).
template <class Inputs, class Epilogue, MmaOverlap kOverlap, TileOrder kOrder>
void launch_wgmma_gemm(const OperandsOf<typename Inputs::Element>& op, const Epilogue& epilogue, cudaStream_t stream) {
  static_assert(wgmma_gemm_smem_bytes<Epilogue>() <= 227 * 1024, "the epilogue's scratch does not fit");
  if (op.m <= 0 || op.n <= 0) return;
  constexpr int kSmemBytes = int(wgmma_gemm_smem_bytes<Epilogue>());
  constexpr auto kernel = wgmma_gemm_kernel<Inputs, Epilogue, kOverlap, kOrder>;
  allow_dynamic_smem<kernel, kSmemBytes>();
  const OperandMaps maps = operand_maps<Inputs>(op);
  const unsigned tiles = unsigned(wgmma_tiles_m(op.m)) * unsigned(wgmma_tiles_n(op.n));  // < 2^31: the refusal
  kernel<<<dim3(tiles), dim3(WgmmaTile::kThreads), kSmemBytes, stream>>>(maps.a, maps.b, op.m, op.n, op.k, epilogue);
  NB_CHECK_LAUNCH();
}

}  // namespace nb::gemm::sm90
