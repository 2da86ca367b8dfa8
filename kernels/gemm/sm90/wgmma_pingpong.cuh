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
#include "kernels/gemm/sm90/tensor_map.hpp"
#include "kernels/gemm/sm90/tile_order.hpp"
#include "kernels/gemm/sm90/wgmma_gemm.hpp"
#include "kernels/gemm/sm90/wgmma_mainloop.cuh"
#include "kernels/gemm/sm90/wgmma_persistent.cuh"
#include "kernels/primitives/cluster_launch.hpp"
#include "kernels/primitives/cluster_occupancy.hpp"
#include "kernels/primitives/smem_opt_in.hpp"

namespace nb::gemm::sm90 {

// 64 x 256 tiles, each stage read by the one warpgroup whose tile it holds; two consumer warpgroups.
using PingPongTile = WgmmaRingShape<64, 5, 1, 2>;
static_assert(PingPongTile::kConsumers == 2, "the kernel deals the tiles to two warpgroups in turn");
// The ring, then the two turn barriers.
inline constexpr std::size_t kPingPongSmemBytes = wgmma_ring_smem_bytes<PingPongTile>() + 2 * 8;
static_assert(kPingPongSmemBytes <= 227 * 1024, "the ring fits a block's shared memory");

// A pair of CTAs (a cluster of 2) on vertically adjacent tiles, M tiles 2p and 2p + 1 of one
// column strip: each loads its own A and half of B's 256 rows, multicast into both CTAs' stage, so
// the pair reads B from L2 once for 128 rows of C, as the cooperative tile does. A stage goes back
// once the readers in both CTAs are done with it (either CTA's multicast overwrites both).
struct LoadPairStage {
  unsigned rank;  // in the cluster: which half of B this CTA loads
  template <class T>
  __device__ void operator()(const WgmmaRingOf<T>& ring, int s, const CUtensorMap* a_map, const CUtensorMap* b_map,
                             int k0, int row0, int col0) const {
    mbarrier_arrive_expect_bytes(&ring.full[s], T::kStageBytes);  // A, and both halves of B
    tma_load_2d(ring.a_stage(s), a_map, k0, row0, &ring.full[s]);
    tma_load_2d_multicast(ring.b_stage(s) + rank * (T::kBBytes / 2), b_map, k0, col0 + int(rank) * (T::kBN / 2),
                          &ring.full[s], std::uint16_t(0x3));
  }
};
struct ReleasePairStage {
  unsigned peer;
  template <class T>
  __device__ void operator()(const WgmmaRingOf<T>& ring, int s) const {
    mbarrier_arrive(&ring.empty[s]);
    mbarrier_arrive_remote(cluster_address(&ring.empty[s], peer));
  }
};

// The fragment contract (fragment_tile.cuh) in a tile of 64 rows, 128 threads (warps 0..3) and no
// scratch: an epilogue here must say kOneWarpgroup (it needs neither the other warpgroup, whose
// epilogue runs at another time, nor consumer_sync()). kPair: launched in clusters of 2
// (LoadPairStage), the tile walk over pairs of M tiles.
template <class Inputs, class Epilogue, MmaOverlap kOverlap, TileOrder kOrder, bool kPair>
__global__ void __launch_bounds__(PingPongTile::kThreads, 1)
    wgmma_pingpong_kernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map,
                          int m, int n, int k, Epilogue epilogue) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using T = PingPongTile;
  extern __shared__ unsigned char wgmma_smem_raw[];
  const WgmmaRingOf<T> ring = WgmmaRingOf<T>::in(wgmma_smem_raw);
  // turn[c]: the other warpgroup has waited through its tile's stages; warpgroup c's next may start.
  std::uint64_t* const turn_done = reinterpret_cast<std::uint64_t*>(ring.after_barriers());
  const int tiles_m = (m + T::kBM - 1) / T::kBM, tiles_n = wgmma_tiles_n(n);
  const int k_blocks = wgmma_k_blocks<Inputs>(k);
  // The CTA's walk: places first, first + stride, ... below `places` (tiles, or pairs of M tiles).
  const unsigned rank = kPair ? cluster_rank() : 0u;
  const int walk_m = kPair ? (tiles_m + 1) / 2 : tiles_m, places = walk_m * tiles_n;
  const int first = kPair ? int(blockIdx.x) / 2 : int(blockIdx.x), stride = kPair ? int(gridDim.x) / 2 : int(gridDim.x);
  const auto tile_of = [&](int place) {
    TileCoord c = tile_at<kOrder>(place, walk_m, tiles_n);
    if (kPair) c.m = 2 * c.m + int(rank);
    return c;
  };

  if (threadIdx.x == 0) {
    mbarrier_init(&turn_done[0], 1);
    mbarrier_init(&turn_done[1], 1);
    ring.init(kPair ? 2 * T::kReaders : T::kReaders);  // its fence covers the two above
  }
  __syncthreads();
  if constexpr (kPair) cluster_sync_all();  // the peer's barriers, initialised, before any multicast

  int it = 0;  // k blocks through the ring so far, over every tile of this CTA (both warpgroups')
  if (threadIdx.x < 128) {
    warpgroup_release_registers<kProducerRegisters>();
    if (threadIdx.x == 0)  // the producer is one thread; the rest of its warpgroup idles
      for (int place = first; place < places; place += stride) {
        const TileCoord c = tile_of(place);
        if constexpr (kPair)
          produce_tile<Inputs>(ring, &a_map, &b_map, c.m * T::kBM, c.n * T::kBN, k_blocks, it, LoadPairStage{rank});
        else
          produce_tile<Inputs>(ring, &a_map, &b_map, c.m * T::kBM, c.n * T::kBN, k_blocks, it);
      }
  } else {
    warpgroup_claim_registers<kConsumerRegisters>();
    const int consumer = int(threadIdx.x) / 128 - 1;
    FragmentTile view = FragmentTile::of_thread(int(threadIdx.x) % 128, int(threadIdx.x) % 32, nullptr);
    float acc[128];
    // Warpgroup c takes the CTA's places of turns c, c + 2, ... (the CTA's t-th place is turn t);
    // each turn but the first waits for the one before it, on the next phase of its barrier.
    unsigned phase = 0;
    it = consumer * k_blocks;
    for (int place = first + consumer * stride; place < places;
         place += 2 * stride, it += k_blocks) {  // ... then the other warpgroup's stages
      const TileCoord c = tile_of(place);
      view.place(c.m, c.n, T::kBM, T::kBN, m, n);  // a pair's second M tile past M: rows <= 0, nothing stored
      const typename Epilogue::Early early = epilogue.load_early(view);
      if (place != first) {
        mbarrier_wait(&turn_done[consumer], phase);
        phase ^= 1u;
      }
      if constexpr (kPair)
        consume_tile<Inputs, kOverlap>(ring, acc, 0, k_blocks, it, ReleasePairStage{rank ^ 1u});
      else
        consume_tile<Inputs, kOverlap>(ring, acc, 0, k_blocks, it);
      if (view.thread == 0) mbarrier_arrive(&turn_done[1 - consumer]);
      epilogue(acc, view, early);
    }
  }
  // No CTA of a pair leaves while its peer may still give a stage back into its barriers.
  if constexpr (kPair) cluster_sync_all();
#else
  __trap();  // not an sm_90a build of this file: nothing here runs
#endif
}

// C = A B^T in 64 x 256 tiles into the fragment epilogue, on min(tiles, SMs) CTAs (kPair: as many
// pairs as are resident at once, up to the pairs of tiles), asynchronous on `stream`. The caller has
// checked that wgmma_device_refusal() and wgmma_operands_refusal(op) are empty; throws
// std::invalid_argument when the 64-row tiles outnumber an int (the refusal counts 128-row ones)
// and std::runtime_error if the driver refuses a tensor map or no pair fits.
template <class Inputs, class Epilogue, MmaOverlap kOverlap, TileOrder kOrder, bool kPair = false>
void launch_wgmma_pingpong(const OperandsOf<typename Inputs::Element>& op, const Epilogue& epilogue,
                           cudaStream_t stream) {
  static_assert(Epilogue::kOneWarpgroup, "the ping-pong grid's epilogues run one warpgroup at a time, no scratch");
  using T = PingPongTile;
  if (op.m <= 0 || op.n <= 0) return;
  const long long tiles_m = (op.m + T::kBM - 1) / T::kBM, tiles = tiles_m * wgmma_tiles_n(op.n);
  if (tiles > INT_MAX)
    throw std::invalid_argument("the ping-pong grid's " + std::to_string(tiles) + " tiles of 64 x 256 outnumber an int");
  constexpr int kSmemBytes = int(kPingPongSmemBytes);
  constexpr auto kernel = wgmma_pingpong_kernel<Inputs, Epilogue, kOverlap, kOrder, kPair>;
  allow_dynamic_smem<kernel, kSmemBytes>();
  const CUtensorMap a_map = k_major_tensor_map(op.a, Inputs::kTma, op.m, op.k, T::kBM);
  const CUtensorMap b_map = k_major_tensor_map(op.b, Inputs::kTma, op.n, op.k, kPair ? T::kBN / 2 : T::kBN);
  if constexpr (!kPair) {
    const int ctas = int(std::min<long long>(tiles, device_sm_count()));
    kernel<<<dim3(unsigned(ctas)), dim3(T::kThreads), kSmemBytes, stream>>>(a_map, b_map, op.m, op.n, op.k, epilogue);
    NB_CHECK_LAUNCH();
  } else {
    cudaLaunchAttribute cluster{};
    const long long pairs = (tiles_m + 1) / 2 * wgmma_tiles_n(op.n);
    cudaLaunchConfig_t config = cluster_launch_config(dim3(2), dim3(T::kThreads), kSmemBytes, stream, 2, true, cluster);
    // The pairs resident at once, asked of the driver once a device and launch shape (cluster_occupancy.hpp).
    const int resident = resident_clusters(reinterpret_cast<const void*>(kernel), config);
    if (resident <= 0) throw std::runtime_error("no pair of the ping-pong grid's CTAs fits on this GPU");
    config.gridDim = dim3(unsigned(2 * std::min<long long>(pairs, resident)));
    NB_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, a_map, b_map, op.m, op.n, op.k, epilogue));
  }
}

}  // namespace nb::gemm::sm90
