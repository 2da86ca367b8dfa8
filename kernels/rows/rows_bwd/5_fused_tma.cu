// The fused row backward fed by TMA (`fused_tma`): a producer thread copies each CTA's part of
// the next rows of x and dy into a ring of shared-memory stages (two bulk copies a row on the
// stage's mbarrier), and consumer warps of two 16-byte packs a thread read their packs into
// registers and do the register kernel's row: the two row sums (shuffles; the stage freed once a
// warp's sums are formed; one named barrier of the consumer warps, the cluster's exchange), dx
// from the xhat (and RMSNorm's g) each thread kept from the sums, the column sums in registers for
// the whole band. The rows' bytes in flight take no registers and no issue slots.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include "kernels/primitives/bulk_copy.cuh"
#include "kernels/primitives/mbarrier.cuh"
#include "kernels/primitives/named_barrier.cuh"
#include "kernels/primitives/shared_align.cuh"
#include "kernels/primitives/storage.cuh"
#include "kernels/rows/rows_bwd/args.cuh"
#include "kernels/rows/rows_bwd/fused_geometry.cuh"
#include "kernels/rows/rows_bwd/fused_plan.hpp"
#include "kernels/rows/rows_bwd/fused_variant.cuh"
#include "kernels/rows/rows_bwd/warp_row_sums.cuh"

namespace nb::rows_bwd {
namespace {

// Row i's stage (i mod kTmaStages) and the parity of its round through the ring (i / kTmaStages),
// counted as the rows go rather than divided out of a 64-bit i.
struct StageRing {
  int stage = 0;
  unsigned phase = 0;
  __device__ void advance() {
    if (++stage == kTmaStages) stage = 0, phase ^= 1u;
  }
};

// blockDim.x = consumers + 32: the last warp is the producer (its first thread copies). Dynamic
// shared memory from its first kTmaStageAlign-byte boundary: kTmaStages stages of [x, dy][pack of
// the part], the end's column sums after the loop. Every CTA of a cluster walks the same rows (its
// band) over its part of them.
template <bool kLayer, class T, int VEC>
__global__ void __launch_bounds__(kTmaMaxConsumers + 32, 1)
    fused_tma(Args<T> a, Geometry g, float* __restrict__ partials) {
  using nb::dev::FloatPack;
  using nb::dev::PackWord;
  using nb::dev::widen;
  constexpr int PPT = kTmaPacksPerThread;
  constexpr int kSums = kLayer ? 2 : 1;
  __shared__ dev::RowSums warp_sums[2][kTmaMaxConsumers / 32];  // one per consumer warp, two rows in turn
  __shared__ ClusterSums<1, kMaxRegisterParts> cluster_sums;
  // full[s]: stage s's bytes landed; empty[s]: every consumer warp read it.
  __shared__ std::uint64_t full[kTmaStages], empty[kTmaStages];
  // The copies' destinations 128-byte aligned: from a start 16 bytes past the static data the
  // kernel measured up to 6% slower on the H200 and 5% on the H100, and more with 464 bytes of
  // static data (docs/notes/memory-bound-round3.md, "Sixteenth" and "Seventeenth").
  extern __shared__ uint4 dynamic_shared[];
  uint4* const stages = nb::dev::align_shared_up<kTmaStageAlign>(dynamic_shared);
  const int consumers = int(blockDim.x) - 32, warps = consumers / 32;
  const int tid = int(threadIdx.x), lane = tid & 31;
  for (int w = warps + tid; w < kTmaMaxConsumers / 32; w += int(blockDim.x))  // the padding's zeros
    warp_sums[0][w] = warp_sums[1][w] = dev::RowSums{0.0f, 0.0f};
  if (tid == 0) {
    for (int s = 0; s < kTmaStages; ++s) {
      nb::dev::mbarrier_init(&full[s], 1);
      nb::dev::mbarrier_init(&empty[s], warps);
    }
    nb::dev::fence_barrier_init();
  }
  __syncthreads();
  cluster_sums.enter(g.parts);
  const Share sh = share_of(g, a.m);
  const long long ppp = g.packs_per_part;
  const int part_packs = int(sh.end_pack - sh.first_pack);
  const auto stage_x = [&](int s) { return stages + std::size_t(2 * s) * ppp; };
  const auto stage_dy = [&](int s) { return stages + std::size_t(2 * s + 1) * ppp; };
  FloatPack<VEC> dw[PPT], db[PPT];
#pragma unroll
  for (int k = 0; k < PPT; ++k) dw[k] = nb::dev::zero_float_pack<VEC>(), db[k] = nb::dev::zero_float_pack<VEC>();

  if (tid >= consumers) {
    if (tid == consumers) {  // row i goes into stage i % kTmaStages once row i - kTmaStages has left it
      const std::uint32_t bytes = std::uint32_t(part_packs) * 16u;
      StageRing ring;
#pragma unroll 1
      for (long long i = 0; i < sh.rows; ++i, ring.advance()) {
        const int s = ring.stage;
        if (i >= kTmaStages) nb::dev::mbarrier_wait(&empty[s], ring.phase ^ 1u);
        const long long offset = sh.row(i) * a.n + sh.first_pack * VEC;
        nb::dev::mbarrier_arrive_expect_bytes(&full[s], 2 * bytes);
        nb::dev::bulk_load(stage_x(s), a.x + offset, bytes, &full[s]);
        nb::dev::bulk_load(stage_dy(s), a.dy + offset, bytes, &full[s]);
      }
    }
    __syncwarp();
  } else {
    const int owned = part_packs - tid;  // pack tid + k * consumers of the part is mine if k * consumers < owned
    const auto mine = [&](int k) { return k * consumers < owned; };
    const long long first = (sh.first_pack + tid) * VEC;
    const int stride = consumers * VEC;
    // What dx takes again after the row sums stays in registers: xhat, and g for RMSNorm (LayerNorm's
    // column sums of dy hold those registers, so it forms g again from dy and w). w stays as stored,
    // widened at each use: held in fp32 it took 16 more registers. 96 a thread is the most 544
    // threads launch with (17 warps: five of them share an SM sub-partition's 16K registers); at
    // 120, no cluster of them was resident.
    PackWord<T, VEC> w_raw[PPT];
    nb::dev::load_pack_words<T, VEC>(a.w + first, stride, mine, w_raw);
    dev::RowStats next_stats = sh.rows > 0 ? dev::row_stats<kLayer>(a, sh.row(0)) : dev::RowStats{0.0f, 0.0f};
    StageRing ring;
#pragma unroll 1
    for (int i = 0; i < sh.rows; ++i, ring.advance()) {  // a band's rows: m / bands, far below 2^31
      const int s = ring.stage, b = i & 1;
      const long long row = sh.row(i);
      const dev::RowStats st = next_stats;
      nb::dev::mbarrier_wait(&full[s], ring.phase);
      PackWord<T, VEC> x_raw[PPT], dy_raw[PPT];
#pragma unroll
      for (int k = 0; k < PPT; ++k)
        if (mine(k)) {
          x_raw[k] = reinterpret_cast<const PackWord<T, VEC>*>(stage_x(s))[tid + k * consumers];
          dy_raw[k] = reinterpret_cast<const PackWord<T, VEC>*>(stage_dy(s))[tid + k * consumers];
        }
      if (i + 1 < sh.rows) next_stats = dev::row_stats<kLayer>(a, sh.row(i + 1));

      dev::RowSums v{};
      dev::PackTerms<VEC> terms[PPT];  // xhat and g for dx
#pragma unroll
      for (int k = 0; k < PPT; ++k) {
        if (!mine(k)) continue;
        const FloatPack<VEC> x = widen<T, VEC>(x_raw[k]), dy = widen<T, VEC>(dy_raw[k]);
        terms[k] = dev::add_pack<kLayer>(x, dy, nb::dev::rewiden<T, VEC>(w_raw[k]), st, v, dw[k], db[k]);
      }
      // The warps' sums meet on a named barrier of the consumers (the producer warp runs on): a
      // warp writes warp_sums[b] again two rows on, after the next row's barrier saw every warp
      // done reading this row's (and the cluster's: the exchange's pushes of the next round come
      // after it too). An mbarrier handoff here measured up to 4% slower on the H200, level on the H100.
      // The stage is freed only here, by lane 0 after its store of the warp's sums: those sums hold
      // every lane's packs (through the shuffles), so the stage's loads have returned before the
      // arrival issues. Freed right after the loads (__syncwarp, then the arrival), dx came out
      // wrong in 53 elements of one timed launch of ~170, in both llm runs on the H100 (layernorm
      // 131072 x 2048 bf16), and not in two runs since. The likely cause: the mbarrier orders the
      // loads for generic-proxy writers, and a bulk copy, an async-proxy writer, can land before a
      // late load has read the stage.
      dev::store_warp_row_sums<kLayer>(v, &warp_sums[b][tid >> 5]);
      if (lane == 0) nb::dev::mbarrier_arrive(&empty[s]);
      nb::dev::named_barrier_sync(1, consumers);
      v = dev::add_padded_warp_row_sums<kLayer, kTmaMaxConsumers / 32>(warp_sums[b]);
      // Clusters of 2 and 4 fold in rank order (a load and an add a rank), larger ones across lanes:
      // the lanes' fold cost LayerNorm's 2 parts 1.3% on the H200 and saved 4-13% at 8-16
      // (docs/notes/memory-bound-round3.md, "Twenty-sixth" and "Twenty-seventh").
      if (g.parts > 1) {
        const auto add = [](dev::RowSums& total, const dev::RowSums& next) { total.merge(next); };
        cluster_sums.send(v, unsigned(i), g.parts);
        v = g.parts <= 4 ? cluster_sums.template receive<dev::RowSums>(unsigned(i), g.parts, add)
                         : cluster_sums.template receive_by_lanes<dev::RowSums>(unsigned(i), g.parts, add);
      }
      const float mean_g = kLayer ? v.g * g.inv_n : 0.0f, mean_gx = v.gx * g.inv_n;
      T* const dx_row = a.dx + row * a.n + first;
#pragma unroll
      for (int k = 0; k < PPT; ++k) {
        if (!mine(k)) continue;
        if (kLayer) terms[k].g = dev::pack_output_grad(widen<T, VEC>(dy_raw[k]), nb::dev::rewiden<T, VEC>(w_raw[k]));
        nb::dev::store_from_float<T, VEC>(dx_row + k * stride,
                                          dev::pack_input_grad<VEC>(terms[k], st.rstd, mean_g, mean_gx));
      }
    }
  }
  __syncthreads();  // every stage read (and every copy landed) before the end's sums take the memory
  cluster_sums.leave(g.parts);

  // The band's partial rows of this part: one slot, so the held sums go out as they are.
  float* const end_sums = reinterpret_cast<float*>(stages);
  const long long part_elements = (long long)part_packs * VEC;
#pragma unroll
  for (int sum = 0; sum < kSums; ++sum) {
    if (tid < consumers) {
      const FloatPack<VEC>* held = sum == 0 ? dw : db;
#pragma unroll
      for (int k = 0; k < PPT; ++k)
        if (k * consumers + tid < part_packs)
          *reinterpret_cast<FloatPack<VEC>*>(end_sums + (std::size_t(k) * consumers + tid) * VEC) = held[k];
    }
    __syncthreads();
    float* out = partials + (sum * g.bands + sh.band) * a.n + sh.first_pack * VEC;
    for (long long e = tid; e < part_elements; e += blockDim.x) out[e] = end_sums[e];
    __syncthreads();
  }
}

// The TMA-fed design for FusedVariant (fused_variant.cuh).
struct TmaDesign {
  static std::string name() { return "fused_tma"; }
  static std::string idea() {
    return "fused, its rows fed by TMA: a producer thread's bulk copies of x and dy into three shared-memory "
           "stages, consumer warps of two 16-byte packs a thread (dx and the column sums from registers), one "
           "cluster exchange a row; rows of 16-byte packs";
  }
  static FusedPlan plan(const Layout&, const Problem& p, int vec) { return plan_fused_tma(p.dim("n"), vec); }
  template <bool kLayer, class T, class F>
  static void with_kernel(const FusedPlan& plan, F&& f) {
    if (plan.vec != nb::dev::kPack16<T>) throw std::logic_error("fused_tma: a plan without 16-byte packs");
    f(Kernel<T>(fused_tma<kLayer, T, nb::dev::kPack16<T>>));
  }
};

}  // namespace

std::unique_ptr<Variant> make_fused_tma_variant(const Layout& layout) {
  return std::make_unique<FusedVariant<TmaDesign>>(layout);
}

}  // namespace nb::rows_bwd
