#pragma once
// The Hopper GEMM as a persistent grid: one CTA per SM walks the 128 x 256 tiles in kOrder
// (tile_order.hpp), its producer thread streaming tile after tile through the ring of
// wgmma_mainloop.cuh without a pause, while the consumer warpgroups hand each tile's accumulators,
// still in registers, to a fragment epilogue (fragment_tile.cuh) and go on to the next: the next
// tile's first stages load under this tile's epilogue, and no CTA but the first of each SM starts
// on an empty ring. A second launch shape gives each team of consecutive CTAs every M tile of one
// column strip at a time, all CTAs resident (a cooperative launch), for epilogues that reduce a
// column over the whole of M through global memory. Included only by files built for sm_90a.
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <string>

#include "harness/cuda_check.hpp"
#include "harness/device/sm_count.hpp"
#include "harness/errors.hpp"
#include "kernels/primitives/smem_opt_in.hpp"
#include "kernels/gemm/operands.hpp"
#include "kernels/gemm/sm90/fragment_tile.cuh"
#include "kernels/gemm/sm90/tensor_map.hpp"
#include "kernels/gemm/sm90/tile_order.hpp"
#include "kernels/gemm/sm90/wgmma_gemm.hpp"
#include "kernels/gemm/sm90/wgmma_mainloop.cuh"

namespace nb::gemm::sm90 {

// The producer warpgroup issues loads from one thread, so it gives its registers to the consumers,
// whose 128 accumulators the epilogue works on in place: 40 + 2 x 232 of the 3 x 168 (65536 / 384)
// each warpgroup starts with.
inline constexpr int kProducerRegisters = 40, kConsumerRegisters = 232;
static_assert(128 * (kProducerRegisters + 2 * kConsumerRegisters) <= 65536, "the register file");

template <class Epilogue>
constexpr std::size_t wgmma_persistent_smem_bytes() {
  return wgmma_ring_smem_bytes() + std::size_t(Epilogue::kScratchFloats) * 4;
}

template <class Inputs, class Epilogue, MmaOverlap kOverlap, TileOrder kOrder>
__global__ void __launch_bounds__(WgmmaTile::kThreads, 1)
    wgmma_persistent_kernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map,
                            int m, int n, int k, Epilogue epilogue) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using T = WgmmaTile;
  extern __shared__ unsigned char wgmma_smem_raw[];
  const WgmmaRing ring = WgmmaRing::in(wgmma_smem_raw);
  const int tiles_m = wgmma_tiles_m(m), tiles_n = wgmma_tiles_n(n), tiles = tiles_m * tiles_n;
  const int k_blocks = wgmma_k_blocks<Inputs>(k);

  if (threadIdx.x == 0) ring.init();
  __syncthreads();

  int it = 0;  // k blocks through the ring so far, over every tile of this CTA
  if (threadIdx.x < 128) {
    warpgroup_release_registers<kProducerRegisters>();
    if (threadIdx.x != 0) return;  // the producer is one thread; the rest of its warpgroup leaves
    for (int tile = int(blockIdx.x); tile < tiles; tile += int(gridDim.x)) {
      const TileCoord c = tile_at<kOrder>(tile, tiles_m, tiles_n);
      produce_tile<Inputs>(ring, &a_map, &b_map, c.m * T::kBM, c.n * T::kBN, k_blocks, it);
    }
    return;
  }

  warpgroup_claim_registers<kConsumerRegisters>();
  const int consumer = threadIdx.x / 128 - 1, lane = threadIdx.x % 32;
  FragmentTile view;
  view.thread = int(threadIdx.x) - 128;
  view.warp = view.thread / 32;
  view.first_row = view.warp * 16 + lane / 4;
  view.quad = lane % 4;
  view.scratch = reinterpret_cast<float*>(ring.after_barriers());
  float acc[128];
  for (int tile = int(blockIdx.x); tile < tiles; tile += int(gridDim.x)) {
    const TileCoord c = tile_at<kOrder>(tile, tiles_m, tiles_n);
    view.row0 = c.m * T::kBM, view.col0 = c.n * T::kBN;
    view.rows = min(T::kBM, m - view.row0), view.cols = min(T::kBN, n - view.col0);
    view.tile_m = c.m, view.tile_n = c.n;
    const typename Epilogue::Early early = epilogue.load_early(view);
    consume_tile<Inputs, kOverlap>(ring, acc, consumer, k_blocks, it);
    epilogue(acc, view, early);
  }
#else
  __trap();  // not an sm_90a build of this file: nothing here runs
#endif
}

// C = A B^T tile by tile into the fragment epilogue, on min(tiles, SMs) CTAs, asynchronous on
// `stream`. The caller has checked that wgmma_device_refusal() and wgmma_operands_refusal(op) are
// empty (throws std::runtime_error if the driver refuses a tensor map).
template <class Inputs, class Epilogue, MmaOverlap kOverlap, TileOrder kOrder>
void launch_wgmma_persistent(const OperandsOf<typename Inputs::Element>& op, const Epilogue& epilogue,
                             cudaStream_t stream) {
  static_assert(wgmma_persistent_smem_bytes<Epilogue>() <= 227 * 1024, "the epilogue's scratch does not fit");
  if (op.m <= 0 || op.n <= 0) return;
  constexpr int kSmemBytes = int(wgmma_persistent_smem_bytes<Epilogue>());
  constexpr auto kernel = wgmma_persistent_kernel<Inputs, Epilogue, kOverlap, kOrder>;
  allow_dynamic_smem<kernel, kSmemBytes>();
  const OperandMaps maps = operand_maps<Inputs>(op);
  const int tiles = wgmma_tiles_m(op.m) * wgmma_tiles_n(op.n);  // < 2^31: the refusal
  const int ctas = std::min(tiles, device_sm_count());
  kernel<<<dim3(unsigned(ctas)), dim3(WgmmaTile::kThreads), kSmemBytes, stream>>>(maps.a, maps.b, op.m, op.n, op.k,
                                                                                  epilogue);
  NB_CHECK_LAUNCH();
}

// The persistent grid in teams of wgmma_tiles_m(op.m) consecutive CTAs (at most
// kMaxTeamTilesM): CTA r of a team computes the tiles of rows 128 r.. of one column strip after
// another, the team's CTAs the same strip in the same turn (tile order m_fastest on a grid of
// whole teams), so an epilogue can reduce a column over all of M among them. As many teams as the
// SMs hold, up to the strips; launched cooperatively, so that every CTA is resident and a CTA may
// wait for its team. Throws nb::Unsupported when M needs more tiles than a team has.
template <class Inputs, class Epilogue, MmaOverlap kOverlap>
void launch_wgmma_persistent_teams(const OperandsOf<typename Inputs::Element>& op, const Epilogue& epilogue,
                                   cudaStream_t stream) {
  static_assert(wgmma_persistent_smem_bytes<Epilogue>() <= 227 * 1024, "the epilogue's scratch does not fit");
  if (op.m <= 0 || op.n <= 0) return;
  const int team = wgmma_tiles_m(op.m);
  if (team > kMaxTeamTilesM)
    throw Unsupported("M = " + std::to_string(op.m) + " is " + std::to_string(team) + " tiles of " +
                      std::to_string(kWgmmaTileM) + " rows; a team holds at most " + std::to_string(kMaxTeamTilesM));
  constexpr int kSmemBytes = int(wgmma_persistent_smem_bytes<Epilogue>());
  constexpr auto kernel = wgmma_persistent_kernel<Inputs, Epilogue, kOverlap, TileOrder::m_fastest>;
  allow_dynamic_smem<kernel, kSmemBytes>();
  const int teams = std::min(wgmma_tiles_n(op.n), device_sm_count() / team);  // one CTA an SM (its shared memory)
  cudaLaunchAttribute cooperative{};
  cooperative.id = cudaLaunchAttributeCooperative;
  cooperative.val.cooperative = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(unsigned(teams * team));
  config.blockDim = dim3(WgmmaTile::kThreads);
  config.dynamicSmemBytes = kSmemBytes;
  config.stream = stream;
  config.attrs = &cooperative;
  config.numAttrs = 1;
  const OperandMaps maps = operand_maps<Inputs>(op);
  NB_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, maps.a, maps.b, op.m, op.n, op.k, epilogue));
}

}  // namespace nb::gemm::sm90
