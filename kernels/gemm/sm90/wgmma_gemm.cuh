#pragma once
// The Hopper GEMM, C = A B^T in tf32 or bf16 (wgmma_inputs.cuh) with fp32 accumulation: one
// producer warpgroup streams 128-row tiles of A and 256-row tiles of B, 128 bytes of K deep, by
// TMA into a 4-stage shared-memory ring guarded by mbarriers, two consumer warpgroups each
// multiply 64 rows of the tile with wgmma (a stage goes back when its MMAs are done: at once, or
// with the next stage's MMAs in flight, kOverlap); the tile is then staged row-major and handed
// to an epilogue policy (tile_view.cuh). A 1-D grid, one CTA per tile, mapped to tiles in kOrder
// (tile_order.hpp). Included only by files built for sm_90a: kernels/gemm/sm90/*.cu and any
// *.sm90a.cu (kernels/CMakeLists.txt).
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "harness/cuda_check.hpp"
#include "kernels/gemm/operands.hpp"
#include "kernels/gemm/sm90/sm90_ptx.cuh"
#include "kernels/gemm/sm90/tensor_map.hpp"
#include "kernels/gemm/sm90/tile_order.hpp"
#include "kernels/gemm/sm90/wgmma_gemm.hpp"
#include "kernels/gemm/sm90/wgmma_inputs.cuh"
#include "kernels/gemm/tile_view.cuh"

namespace nb::gemm::sm90 {

struct WgmmaTile {
  static constexpr int kBM = kWgmmaTileM, kBN = kWgmmaTileN, kStages = 4;
  static constexpr int kConsumers = 2;                   // warpgroups of 64 rows each
  static constexpr int kThreads = 128 * (1 + kConsumers);
  static constexpr int kMmasPerStage = kSwizzleBytes / kBytesPerMma;
  static constexpr int kABytes = kBM * kSwizzleBytes, kBBytes = kBN * kSwizzleBytes;
  static constexpr int kStageBytes = kABytes + kBBytes;
  static constexpr int kRingBytes = kStages * kStageBytes;
  static constexpr int kStagedLd = kBN + 8;  // float2 stores of a half-warp land in 32 distinct banks
  static constexpr int kBarrierBytes = 2 * kStages * 8;
  static_assert(kBM * kStagedLd * 4 <= kRingBytes, "the staged tile reuses the ring");
};

// Dynamic shared memory: slack to align the ring to 1024 bytes (the swizzle atom), the ring (the
// staged tile after the mainloop), the barriers, then the epilogue's scratch.
template <class Epilogue>
constexpr std::size_t wgmma_gemm_smem_bytes() {
  return 1024 + WgmmaTile::kRingBytes + WgmmaTile::kBarrierBytes + std::size_t(Epilogue::kScratchFloats) * 4;
}

// Thread t of consumer warpgroup `consumer` writes its accumulators to the row-major tile.
__device__ inline void stage_accumulators(const float (&acc)[128], float* tile, int consumer) {
  const int t = threadIdx.x % 128, warp = t / 32, lane = t % 32;
  const int row = consumer * 64 + warp * 16 + lane / 4;
  for (int j = 0; j < 32; ++j) {
    const int col = 8 * j + 2 * (lane % 4);
    *reinterpret_cast<float2*>(&tile[row * WgmmaTile::kStagedLd + col]) = make_float2(acc[4 * j], acc[4 * j + 1]);
    *reinterpret_cast<float2*>(&tile[(row + 8) * WgmmaTile::kStagedLd + col]) =
        make_float2(acc[4 * j + 2], acc[4 * j + 3]);
  }
}

template <class Inputs, class Epilogue, MmaOverlap kOverlap, TileOrder kOrder>
__global__ void __launch_bounds__(WgmmaTile::kThreads, 1)
    wgmma_gemm_kernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map, int m,
                      int n, int k, Epilogue epilogue) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using T = WgmmaTile;
  extern __shared__ unsigned char wgmma_smem_raw[];
  unsigned char* smem = reinterpret_cast<unsigned char*>((reinterpret_cast<std::uintptr_t>(wgmma_smem_raw) + 1023) &
                                                         ~std::uintptr_t(1023));
  auto a_stage = [&](int s) { return smem + s * T::kStageBytes; };
  auto b_stage = [&](int s) { return smem + s * T::kStageBytes + T::kABytes; };
  std::uint64_t* full = reinterpret_cast<std::uint64_t*>(smem + T::kRingBytes);  // loads landed
  std::uint64_t* empty = full + T::kStages;                                      // consumers done
  const int warpgroup = threadIdx.x / 128;
  const TileCoord tile_id = tile_at<kOrder>(int(blockIdx.x), wgmma_tiles_m(m), wgmma_tiles_n(n));
  const int row0 = tile_id.m * T::kBM, col0 = tile_id.n * T::kBN;
  constexpr int kBK = box_k(Inputs::kTma);  // elements of K per stage
  const int k_blocks = (k + kBK - 1) / kBK;

  if (threadIdx.x == 0) {
    for (int s = 0; s < T::kStages; ++s) {
      mbarrier_init(&full[s], 1);
      mbarrier_init(&empty[s], T::kConsumers);
    }
    fence_barrier_init();
  }
  __syncthreads();

  float acc[128];
  for (float& v : acc) v = 0.0f;
  if (warpgroup == 0) {
    if (threadIdx.x == 0) {
      for (int kb = 0; kb < k_blocks; ++kb) {
        const int s = kb % T::kStages;
        if (kb >= T::kStages) mbarrier_wait(&empty[s], ((kb / T::kStages) - 1) & 1);
        mbarrier_arrive_expect_bytes(&full[s], T::kStageBytes);
        tma_load_2d(a_stage(s), &a_map, kb * kBK, row0, &full[s]);
        tma_load_2d(b_stage(s), &b_map, kb * kBK, col0, &full[s]);
      }
    }
  } else {
    const int consumer = warpgroup - 1;
    for (int kb = 0; kb < k_blocks; ++kb) {
      const int s = kb % T::kStages;
      mbarrier_wait(&full[s], (kb / T::kStages) & 1);
      wgmma_fence();
      const unsigned char* a_rows = a_stage(s) + consumer * 64 * kSwizzleBytes;
      for (int step = 0; step < T::kMmasPerStage; ++step)
        Inputs::mma(acc, swizzled_k_major_descriptor(a_rows + step * kBytesPerMma),
                    swizzled_k_major_descriptor(b_stage(s) + step * kBytesPerMma));
      wgmma_commit_group();
      if constexpr (kOverlap == MmaOverlap::one_group) {
        wgmma_wait_group<1>();  // the previous stage's MMAs are done: its buffers go back
        if (kb > 0 && threadIdx.x % 128 == 0) mbarrier_arrive(&empty[(kb - 1) % T::kStages]);
      } else {
        wgmma_wait_group<0>();
        if (threadIdx.x % 128 == 0) mbarrier_arrive(&empty[s]);
      }
    }
    wgmma_wait_group<0>();
  }

  __syncthreads();  // every load consumed and every wgmma retired: the ring becomes the staged tile
  float* tile = reinterpret_cast<float*>(smem);
  if (warpgroup > 0) stage_accumulators(acc, tile, warpgroup - 1);
  __syncthreads();
  epilogue(staged_tile_view(tile, T::kStagedLd, T::kBM, T::kBN, row0, col0, tile_id.m, tile_id.n, m, n,
                            reinterpret_cast<float*>(smem + T::kRingBytes + T::kBarrierBytes)));
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
  auto* kernel = wgmma_gemm_kernel<Inputs, Epilogue, kOverlap, kOrder>;
  static const bool configured = [kernel] {
    NB_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
    return true;
  }();
  (void)configured;
  const CUtensorMap a_map = k_major_tensor_map(op.a, Inputs::kTma, op.m, op.k, WgmmaTile::kBM);
  const CUtensorMap b_map = k_major_tensor_map(op.b, Inputs::kTma, op.n, op.k, WgmmaTile::kBN);
  const unsigned tiles = unsigned(wgmma_tiles_m(op.m)) * unsigned(wgmma_tiles_n(op.n));  // < 2^31: the refusal
  kernel<<<dim3(tiles), dim3(WgmmaTile::kThreads), kSmemBytes, stream>>>(a_map, b_map, op.m, op.n, op.k, epilogue);
  NB_CHECK_LAUNCH();
}

}  // namespace nb::gemm::sm90
