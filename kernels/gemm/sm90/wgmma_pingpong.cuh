#pragma once
// The Hopper GEMM's persistent grid in ping-pong form: each consumer warpgroup takes whole 64 x 256
// tiles of the CTA's share, in turn with the other, so one runs a tile's epilogue while the other
// runs its tile's MMAs, and the tensor cores do not wait through epilogues (the cooperative grid of
// wgmma_persistent.cuh, both warpgroups on one 128 x 256 tile, idles them there: 14 thousand cycles
// of BatchNorm's epilogue a tile against a 74-thousand-cycle mainloop, docs/notes/hopper-gemm.md).
// The producer streams the CTA's tiles through one ring of 5 stages of 64 rows of A and 256 of B
// (40 KB each); a warpgroup steps over the other's stages by its count of k blocks, and starts a
// tile's mainloop only once the other has waited through the last tile's stages (an mbarrier a
// warpgroup): a stage's wait by parity is sound only for the ring's next lap, and this keeps every
// waiter there. A tile's B is read for 64 rows of C, not 128: 1.67x the operand bytes a flop from
// L2. Included only by files built for sm_90a.
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "harness/cuda_check.hpp"
#include "harness/device/sm_count.hpp"
#include "kernels/gemm/operands.hpp"
#include "kernels/gemm/sm90/fragment_tile.cuh"
#include "kernels/gemm/sm90/tile_order.hpp"
#include "kernels/gemm/sm90/wgmma_gemm.hpp"
#include "kernels/gemm/sm90/wgmma_mainloop.cuh"
#include "kernels/gemm/sm90/wgmma_persistent.cuh"
#include "kernels/primitives/smem_opt_in.hpp"

namespace nb::gemm::sm90 {

// 64 x 256 tiles, each stage read by the one warpgroup whose tile it holds; two consumer warpgroups.
using PingPongTile = WgmmaRingShape<64, 5, 1, 2>;
static_assert(PingPongTile::kConsumers == 2, "the kernel deals the tiles to two warpgroups in turn");
// The ring, then the two turn barriers.
inline constexpr std::size_t kPingPongSmemBytes = wgmma_ring_smem_bytes<PingPongTile>() + 2 * 8;
static_assert(kPingPongSmemBytes <= 227 * 1024, "the ring fits a block's shared memory");

// The fragment contract (fragment_tile.cuh) in a tile of 64 rows, 128 threads (warps 0..3) and no
// scratch: an epilogue here must say kOneWarpgroup (it needs neither the other warpgroup, whose
// epilogue runs at another time, nor consumer_sync()).
template <class Inputs, class Epilogue, MmaOverlap kOverlap, TileOrder kOrder>
__global__ void __launch_bounds__(PingPongTile::kThreads, 1)
    wgmma_pingpong_kernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map,
                          int m, int n, int k, Epilogue epilogue) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using T = PingPongTile;
  extern __shared__ unsigned char wgmma_smem_raw[];
  const WgmmaRingOf<T> ring = WgmmaRingOf<T>::in(wgmma_smem_raw);
  // turn[c]: the other warpgroup has waited through its tile's stages; warpgroup c's next may start.
  std::uint64_t* const turn_done = reinterpret_cast<std::uint64_t*>(ring.after_barriers());
  const int tiles_m = (m + T::kBM - 1) / T::kBM, tiles_n = wgmma_tiles_n(n), tiles = tiles_m * tiles_n;
  const int k_blocks = wgmma_k_blocks<Inputs>(k);

  if (threadIdx.x == 0) {
    mbarrier_init(&turn_done[0], 1);
    mbarrier_init(&turn_done[1], 1);
    ring.init();  // its fence covers the two above
  }
  __syncthreads();

  int it = 0;  // k blocks through the ring so far, over every tile of this CTA (both warpgroups')
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
  const int consumer = int(threadIdx.x) / 128 - 1;
  FragmentTile view = FragmentTile::of_thread(int(threadIdx.x) % 128, int(threadIdx.x) % 32, nullptr);
  float acc[128];
  // Warpgroup c takes the CTA's tiles of turns c, c + 2, ... (the CTA's t-th tile is turn t); each
  // turn but the first waits for the one before it, on the next phase of its barrier.
  unsigned phase = 0;
  it = consumer * k_blocks;
  for (int tile = int(blockIdx.x) + consumer * int(gridDim.x); tile < tiles;
       tile += 2 * int(gridDim.x), it += k_blocks) {  // ... then the other warpgroup's stages
    const TileCoord c = tile_at<kOrder>(tile, tiles_m, tiles_n);
    view.place(c.m, c.n, T::kBM, T::kBN, m, n);
    const typename Epilogue::Early early = epilogue.load_early(view);
    if (tile != int(blockIdx.x)) {
      mbarrier_wait(&turn_done[consumer], phase);
      phase ^= 1u;
    }
    consume_tile<Inputs, kOverlap>(ring, acc, 0, k_blocks, it);
    if (view.thread == 0) mbarrier_arrive(&turn_done[1 - consumer]);
    epilogue(acc, view, early);
  }
#else
  __trap();  // not an sm_90a build of this file: nothing here runs
#endif
}

// C = A B^T in 64 x 256 tiles into the fragment epilogue, on min(tiles, SMs) CTAs, asynchronous on
// `stream`. The caller has checked that wgmma_device_refusal() and wgmma_operands_refusal(op) are
// empty; throws std::invalid_argument when the 64-row tiles outnumber an int (the refusal counts
// 128-row ones) and std::runtime_error if the driver refuses a tensor map.
template <class Inputs, class Epilogue, MmaOverlap kOverlap, TileOrder kOrder>
void launch_wgmma_pingpong(const OperandsOf<typename Inputs::Element>& op, const Epilogue& epilogue,
                           cudaStream_t stream) {
  static_assert(Epilogue::kOneWarpgroup, "the ping-pong grid's epilogues run one warpgroup at a time, no scratch");
  if (op.m <= 0 || op.n <= 0) return;
  const long long tiles = (long long)((op.m + PingPongTile::kBM - 1) / PingPongTile::kBM) * wgmma_tiles_n(op.n);
  if (tiles > INT_MAX)
    throw std::invalid_argument("the ping-pong grid's " + std::to_string(tiles) + " tiles of 64 x 256 outnumber an int");
  constexpr int kSmemBytes = int(kPingPongSmemBytes);
  constexpr auto kernel = wgmma_pingpong_kernel<Inputs, Epilogue, kOverlap, kOrder>;
  allow_dynamic_smem<kernel, kSmemBytes>();
  const OperandMaps maps = operand_maps<Inputs, PingPongTile>(op);
  const int ctas = int(std::min<long long>(tiles, device_sm_count()));
  kernel<<<dim3(unsigned(ctas)), dim3(PingPongTile::kThreads), kSmemBytes, stream>>>(maps.a, maps.b, op.m, op.n,
                                                                                    op.k, epilogue);
  NB_CHECK_LAUNCH();
}

}  // namespace nb::gemm::sm90
