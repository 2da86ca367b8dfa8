#pragma once
// The Hopper GEMM as a persistent grid: one CTA per SM walks the 128 x 256 tiles in kOrder
// (tile_order.hpp), its producer thread streaming tile after tile through the ring of
// wgmma_mainloop.cuh without a pause, while the consumer warpgroups hand each tile's accumulators,
// still in registers, to a fragment epilogue (fragment_tile.cuh) and go on to the next: the next
// tile's first stages load under this tile's epilogue, and no CTA but the first of each SM starts
// on an empty ring. A second launch shape groups the CTAs into clusters that each hold every M
// tile of one column strip at a time, for epilogues that reduce over the whole of M through
// distributed shared memory. Included only by files built for sm_90a.
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <cooperative_groups.h>

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

// Whether an epilogue exchanges values within a cluster (fragment_tile.cuh: enter_cluster).
template <class Epilogue, class = void>
struct is_cluster_epilogue : std::false_type {};
template <class Epilogue>
struct is_cluster_epilogue<Epilogue, std::void_t<decltype(&Epilogue::enter_cluster)>> : std::true_type {};

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
  if constexpr (is_cluster_epilogue<Epilogue>::value) {
    if (threadIdx.x == 0) epilogue.enter_cluster(reinterpret_cast<float*>(ring.after_barriers()));
    cooperative_groups::this_cluster().sync();  // every CTA's barriers are initialised before any push
  } else {
    __syncthreads();
  }

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
  view.tiles_before = 0;
  for (int tile = int(blockIdx.x); tile < tiles; tile += int(gridDim.x), ++view.tiles_before) {
    const TileCoord c = tile_at<kOrder>(tile, tiles_m, tiles_n);
    view.more_tiles = tile + int(gridDim.x) < tiles;
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

// The persistent grid in clusters of wgmma_tiles_m(op.m) CTAs (at most kMaxClusterTilesM): CTA
// rank r of a cluster computes the tiles of rows 128 r.. of one column strip after another, the
// cluster's CTAs the same strip at the same time (tile order m_fastest, a grid of whole clusters),
// so an epilogue can reduce a column over all of M inside the cluster. As many clusters as fit on
// the GPU at once, up to the strips. Throws nb::Unsupported when M needs more tiles or no such
// cluster fits here.
template <class Inputs, class Epilogue, MmaOverlap kOverlap>
void launch_wgmma_persistent_clusters(const OperandsOf<typename Inputs::Element>& op, const Epilogue& epilogue,
                                      cudaStream_t stream) {
  static_assert(wgmma_persistent_smem_bytes<Epilogue>() <= 227 * 1024, "the epilogue's scratch does not fit");
  if (op.m <= 0 || op.n <= 0) return;
  const int cluster = wgmma_tiles_m(op.m);
  if (cluster > kMaxClusterTilesM)
    throw Unsupported("M = " + std::to_string(op.m) + " is " + std::to_string(cluster) + " tiles of " +
                      std::to_string(kWgmmaTileM) + " rows; a cluster holds at most " +
                      std::to_string(kMaxClusterTilesM));
  constexpr int kSmemBytes = int(wgmma_persistent_smem_bytes<Epilogue>());
  constexpr auto kernel = wgmma_persistent_kernel<Inputs, Epilogue, kOverlap, TileOrder::m_fastest>;
  allow_dynamic_smem<kernel, kSmemBytes>();

  cudaLaunchAttribute shape{};
  shape.id = cudaLaunchAttributeClusterDimension;
  shape.val.clusterDim.x = unsigned(cluster), shape.val.clusterDim.y = 1, shape.val.clusterDim.z = 1;
  cudaLaunchConfig_t config{};
  config.blockDim = dim3(WgmmaTile::kThreads);
  config.dynamicSmemBytes = kSmemBytes;
  config.stream = stream;
  config.attrs = &shape;
  config.numAttrs = 1;
  // The clusters of each size that fit at once, asked once per process (a run uses one device).
  static int fitting[kMaxClusterTilesM + 1] = {};
  static const bool asked = [&] {
    for (int size = 1; size <= kMaxClusterTilesM; ++size) {
      shape.val.clusterDim.x = unsigned(size);
      config.gridDim = dim3(unsigned(size));
      NB_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&fitting[size], kernel, &config));
    }
    shape.val.clusterDim.x = unsigned(cluster);
    return true;
  }();
  (void)asked;
  if (fitting[cluster] <= 0)
    throw Unsupported("no cluster of " + std::to_string(cluster) + " CTAs with " + std::to_string(kSmemBytes) +
                      " bytes of shared memory each fits on this GPU");
  const int clusters = std::min(wgmma_tiles_n(op.n), fitting[cluster]);
  config.gridDim = dim3(unsigned(clusters * cluster));
  const OperandMaps maps = operand_maps<Inputs>(op);
  NB_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, maps.a, maps.b, op.m, op.n, op.k, epilogue));
}

}  // namespace nb::gemm::sm90
