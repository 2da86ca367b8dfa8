// The fused row backward fed by TMA (`fused_tma`): each CTA's part of the next rows of x and dy
// waits in a ring of shared-memory stages (two bulk copies a row on the stage's mbarrier), and
// warps of two 16-byte packs a thread read their packs into registers and do the register kernel's
// row: the two row sums (shuffles; over a cluster each warp pushes its own to every CTA), dx from
// the xhat and g each thread kept from the sums, the column sums in registers for the whole band.
// Thread 0 issues the copies, a row into a stage right after the named barrier that follows every
// warp's last read of it: no producer warp, so a thread may hold 128 registers. The rows' bytes in
// flight take no registers and no issue slots. fp32's rows over the widest clusters, and those at
// four packs a thread, go one ahead: row i + 1's sums leave for the peers before row i's totals are
// taken, and dx reads row i's stage again, so the exchange's round trip hides under a row's sums.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "kernels/primitives/bulk_copy.cuh"
#include "kernels/primitives/mbarrier.cuh"
#include "kernels/primitives/named_barrier.cuh"
#include "kernels/primitives/shared_align.cuh"
#include "kernels/primitives/storage.cuh"
#include "kernels/primitives/warp_cluster_exchange.cuh"
#include "kernels/rows/rows_bwd/args.cuh"
#include "kernels/rows/rows_bwd/fused_geometry.cuh"
#include "kernels/rows/rows_bwd/fused_plan.hpp"
#include "kernels/rows/rows_bwd/fused_variant.cuh"
#include "kernels/rows/rows_bwd/warp_row_sums.cuh"

namespace nb::rows_bwd {
namespace {

// Row i's stage (i mod kStages) and the parity of its round through the ring (i / kStages),
// counted as the rows go rather than divided out of a 64-bit i.
template <int kStages>
struct StageRing {
  int stage = 0;
  unsigned phase = 0;
  __device__ void advance() {
    if (++stage == kStages) stage = 0, phase ^= 1u;
  }
};

// Pack `index` of a stage, as stored.
template <class T, int VEC>
__device__ __forceinline__ nb::dev::PackWord<T, VEC> stage_pack(const uint4* stage, int index) {
  return reinterpret_cast<const nb::dev::PackWord<T, VEC>*>(stage)[index];
}

// A row's packs of this thread from a stage, as stored.
template <class T, int VEC, int PPT, class Mine>
__device__ __forceinline__ void read_stage(const uint4* stage, int tid, int consumers, Mine mine,
                                           nb::dev::PackWord<T, VEC> (&packs)[PPT]) {
#pragma unroll
  for (int k = 0; k < PPT; ++k)
    if (mine(k)) packs[k] = stage_pack<T, VEC>(stage, tid + k * consumers);
}

// Adds a row's sums into a running total: the merge both cluster exchanges take.
__device__ __forceinline__ void add_row_sums(dev::RowSums& total, const dev::RowSums& next) { total.merge(next); }

// The cluster's totals of row `round`'s sums, folded across lanes: the one-ahead plans span 8 or 16
// parts, where the fold saved 4-13% against a load and an add a rank (docs/notes/
// memory-bound-round3.md, "Twenty-sixth" and "Twenty-seventh"). The rank-order branch for 2-4
// parts, never taken, went: RMSNorm's four-pack kernel from 96 registers to 87, 0.3-0.5% faster
// at 131072-262144 ("Thirty-eighth").
template <class Exchange>
__device__ __forceinline__ dev::RowSums cluster_totals(Exchange& exchange, unsigned round, int parts) {
  return exchange.template receive_by_lanes<dev::RowSums>(round, parts, add_row_sums);
}

// The stages from the dynamic shared memory's first kTmaStageAlign-byte boundary (its start is 16-byte
// aligned; the launch asks kTmaStageAlign bytes more).
__device__ __forceinline__ uint4* stages_aligned_at_run_time() {
  extern __shared__ uint4 dynamic_shared[];
  return nb::dev::align_shared_up<kTmaStageAlign>(dynamic_shared);
}

// blockDim.x: the plan's lanes, every thread a reader (thread 0 also copies). Dynamic shared
// memory, kTmaStageAlign-byte aligned (declared, or at run time: kAlignedAtRunTime): kStages stages
// of [x, dy][pack of the part], then LayerNorm's w at four packs a thread; the end's column sums
// after the loop. kAhead: rows one ahead (the plan's one_ahead), only over a cluster (parts > 1:
// its rows' totals come from the exchange). PPT packs a thread. Every CTA of a cluster walks the
// same rows (its band) over its part of them.
template <bool kLayer, class T, int VEC, bool kAhead, int PPT, int kStages, bool kAlignedAtRunTime = false>
__global__ void __launch_bounds__(kTmaMaxConsumers, 1)
    fused_tma(Args<T> a, Geometry g, float* __restrict__ partials) {
  using nb::dev::FloatPack;
  using nb::dev::PackWord;
  using nb::dev::widen;
  constexpr int kSums = kLayer ? 2 : 1;
  __shared__ dev::RowSums warp_sums[2][kTmaMaxConsumers / 32];  // one per warp, two rows in turn
  // In turn every warp pushes its own sums (WarpClusterExchange); one ahead, the CTA's.
  using WarpExchange = nb::dev::WarpClusterExchange<dev::RowSums, kTmaMaxConsumers / 32, kMaxRegisterParts>;
  using Exchange = std::conditional_t<kAhead, ClusterSums<1, kMaxRegisterParts, 4>, WarpExchange>;
  __shared__ Exchange cluster_sums;
  __shared__ std::uint64_t full[kStages];  // full[s]: stage s's bytes landed
  static_assert(sizeof(warp_sums) + sizeof(cluster_sums) + sizeof(full) <=
                    (kAhead ? kTmaStaticBytes : kTmaInTurnStaticBytes),
                "the plan leaves kTmaStaticBytes (in turn, kTmaInTurnStaticBytes) beside the stages");
  // The copies' destinations 128-byte aligned: from a start 16 bytes past the static data the
  // kernel measured up to 6% slower on the H200 and 5% on the H100, and more with 464 bytes of
  // static data (docs/notes/memory-bound-round3.md, "Sixteenth" and "Seventeenth"). Aligned by the
  // declaration, every stage address is a constant plus the thread's offset; moved up at run time
  // (align_shared_up, the plan's stages_aligned_at_run_time), each pack's load first rebuilds the
  // generic base and its padding, about 12 uniform instructions a load that ptxas does not hoist,
  // yet RMSNorm's rows of one or two parts ran 2-5% faster so (fused_plan.hpp; not understood: the
  // declared form's warps wait longer for their stage, "Thirty-eighth").
  // (Chosen in one statement, LayerNorm's in-turn kernel took 127 registers, not 124.)
  extern __shared__ __align__(kTmaStageAlign) uint4 declared_stages[];
  uint4* stages = declared_stages;
  if constexpr (kAlignedAtRunTime) stages = stages_aligned_at_run_time();
  const int consumers = int(blockDim.x), warps = consumers / 32;
  const int tid = int(threadIdx.x);
  for (int w = warps + tid; w < kTmaMaxConsumers / 32; w += int(blockDim.x))  // the padding's zeros
    warp_sums[0][w] = warp_sums[1][w] = dev::RowSums{0.0f, 0.0f};
  if (tid == 0) {
    for (int s = 0; s < kStages; ++s) nb::dev::mbarrier_init(&full[s], 1);
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

  // Row i's part of x and dy into stage s, on full[s].
  const auto copy_row = [&](long long i, int s) {
    const std::uint32_t bytes = std::uint32_t(part_packs) * 16u;
    const long long offset = sh.row(i) * a.n + sh.first_pack * VEC;
    nb::dev::mbarrier_arrive_expect_bytes(&full[s], 2 * bytes);
    nb::dev::bulk_load(stage_x(s), a.x + offset, bytes, &full[s]);
    nb::dev::bulk_load(stage_dy(s), a.dy + offset, bytes, &full[s]);
  };
  // Thread 0 copies the first kStages rows here, and row i + kStages into row i's stage once the
  // named barrier after every warp's last read of it has passed (below).
  if (tid == 0)
    for (long long i = 0; i < sh.rows && i < kStages; ++i) copy_row(i, int(i));
  const int owned = part_packs - tid;  // pack tid + k * consumers of the part is mine if k * consumers < owned
  const auto mine = [&](int k) { return k * consumers < owned; };
  const long long first = (sh.first_pack + tid) * VEC;
  const int stride = consumers * VEC;
  // What dx takes again after the row sums stays in registers: xhat and g. w stays as stored,
  // widened at each use: held in fp32 it took 16 more registers. 128 a thread is the most 512
  // threads launch with (16 warps, four to an SM sub-partition's 16K registers). With a producer
  // warp beside them (17 warps) the most was 96: LayerNorm then formed g again from dy and w,
  // and spilled 8 bytes at two packs and 52 at four (122 registers and none without it).
  PackWord<T, VEC> w_raw[PPT];
  nb::dev::load_pack_words<T, VEC>(a.w + first, stride, mine, w_raw);
  // LayerNorm at four packs keeps w in shared memory after the stages (tma_shared_w_bytes), each
  // thread's own packs, written and read by that thread alone (no barrier): held in registers, the
  // kernel spilled 312 bytes (bf16) when a thread had 96; from shared memory it takes 122 of 128.
  constexpr bool kWShared = tma_w_in_shared(kSums, PPT);
  PackWord<T, VEC>* const w_shared = reinterpret_cast<PackWord<T, VEC>*>(stages + std::size_t(2 * kStages) * ppp);
  if constexpr (kWShared) {
#pragma unroll
    for (int k = 0; k < PPT; ++k)
      if (mine(k)) w_shared[tid + k * consumers] = w_raw[k];
  }
  const auto w_at = [&](int k) {
    if constexpr (kWShared) return nb::dev::rewiden<T, VEC>(w_shared[tid + k * consumers]);
    else return nb::dev::rewiden<T, VEC>(w_raw[k]);
  };
  dev::RowStats next_stats = sh.rows > 0 ? dev::row_stats<kLayer>(a, sh.row(0)) : dev::RowStats{0.0f, 0.0f};
  if constexpr (kAhead) {
    // Row r's sums into the column sums and its round of the exchange (sent, not received); its
    // stage stays full until dx has read it again. Here and in dx each pack is read as it is used:
    // read all first (as the in-turn loop does), the kernel took 96 registers and LayerNorm spilled;
    // a pack at a time, 69 (RMSNorm bf16) and 80 (LayerNorm).
    const auto send_row_sums = [&](int r, int s, dev::RowStats st) {
      dev::RowSums v{};
#pragma unroll
      for (int k = 0; k < PPT; ++k)
        if (mine(k))
          dev::add_pack<kLayer>(widen<T, VEC>(stage_pack<T, VEC>(stage_x(s), tid + k * consumers)),
                                widen<T, VEC>(stage_pack<T, VEC>(stage_dy(s), tid + k * consumers)),
                                w_at(k), st, v, dw[k], db[k]);
      // A warp writes warp_sums[r & 1] again two rows on, after the next row's barrier saw every
      // warp done reading it; the exchange's round r + 2 is pushed after that barrier too (the
      // four-buffer rule, cluster_exchange.cuh).
      dev::store_warp_row_sums<kLayer>(v, &warp_sums[r & 1][tid >> 5]);
      nb::dev::named_barrier_sync(1, consumers);
      // Every warp has finished row r - 2's dx (it comes before this row's sums in each warp), the
      // last read of its stage: that stage takes row r - 2 + kStages.
      if (tid == 0 && r >= 2 && r - 2 + kStages < sh.rows) copy_row(r - 2 + kStages, (s + kStages - 2) % kStages);
      cluster_sums.send(dev::add_padded_warp_row_sums<kLayer, kTmaMaxConsumers / 32>(warp_sums[r & 1]),
                        unsigned(r), g.parts);
    };
    StageRing<kStages> ring, ahead;
    if (sh.rows > 0) {
      nb::dev::mbarrier_wait(&full[0], 0u);
      send_row_sums(0, 0, next_stats);
      ahead.advance();
    }
    if (sh.rows > 1) next_stats = dev::row_stats<kLayer>(a, sh.row(1));
#pragma unroll 1
    for (int i = 0; i < sh.rows; ++i, ring.advance(), ahead.advance()) {
      if (i + 1 < sh.rows) {
        nb::dev::mbarrier_wait(&full[ahead.stage], ahead.phase);
        send_row_sums(i + 1, ahead.stage, next_stats);
        if (i + 2 < sh.rows) next_stats = dev::row_stats<kLayer>(a, sh.row(i + 2));
      }
      // Row i's statistics loaded again (a cache hit: its sums loaded them a row ago) rather than
      // held: two rows' of them held beside the prefetch spilled LayerNorm's bf16 kernel.
      const dev::RowStats st = dev::row_stats<kLayer>(a, sh.row(i));
      const dev::RowSums v = cluster_totals(cluster_sums, unsigned(i), g.parts);
      const float mean_g = kLayer ? v.g * g.inv_n : 0.0f, mean_gx = v.gx * g.inv_n;
      const int s = ring.stage;
      T* const dx_row = a.dx + sh.row(i) * a.n + first;
#pragma unroll
      for (int k = 0; k < PPT; ++k) {
        if (!mine(k)) continue;
        const FloatPack<VEC> dx = dev::pack_input_grad<kLayer, VEC>(
            widen<T, VEC>(stage_pack<T, VEC>(stage_x(s), tid + k * consumers)),
            widen<T, VEC>(stage_pack<T, VEC>(stage_dy(s), tid + k * consumers)), w_at(k),
            st, mean_g, mean_gx);
        nb::dev::store_from_float<T, VEC>(dx_row + k * stride, dx);
      }
    }
  } else {
    StageRing<kStages> ring;
#pragma unroll 1
    for (int i = 0; i < sh.rows; ++i, ring.advance()) {  // a band's rows: m / bands, far below 2^31
      const int s = ring.stage, b = i & 1;
      const long long row = sh.row(i);
      const dev::RowStats st = next_stats;
      nb::dev::mbarrier_wait(&full[s], ring.phase);
      PackWord<T, VEC> x_raw[PPT], dy_raw[PPT];
      read_stage<T, VEC>(stage_x(s), tid, consumers, mine, x_raw);
      read_stage<T, VEC>(stage_dy(s), tid, consumers, mine, dy_raw);
      if (i + 1 < sh.rows) next_stats = dev::row_stats<kLayer>(a, sh.row(i + 1));

      dev::RowSums v{};
      dev::PackTerms<VEC> terms[PPT];  // xhat and g for dx
#pragma unroll
      for (int k = 0; k < PPT; ++k) {
        if (!mine(k)) continue;
        const FloatPack<VEC> x = widen<T, VEC>(x_raw[k]), dy = widen<T, VEC>(dy_raw[k]);
        terms[k] = dev::add_pack<kLayer>(x, dy, w_at(k), st, v, dw[k], db[k]);
      }
      // The warps' sums meet on a named barrier (over a cluster, after each warp's push): a warp
      // writes warp_sums[b] again two rows on, after the next row's barrier saw every warp done
      // reading this row's. An mbarrier handoff here measured up to 4% slower on the H200, level on
      // the H100. The stage takes its next row only after this barrier: each warp's sums hold every
      // lane's packs (through the shuffles), so every load of the stage has returned before the
      // copy issues. (Freed right after the loads, when a producer warp waited on an mbarrier of
      // the readers, dx came out wrong in 53 elements of one timed launch of ~170 on the H100: a
      // bulk copy, an async-proxy writer, can land before a late load has read the stage.)
      if (g.parts > 1) {
        // Over a cluster each warp pushes its sums to every CTA and the round's wait folds them all,
        // so no barrier or CTA-wide add comes before the round trip: 5-10% faster at LayerNorm's
        // 16384-65536 bf16 than pushing the CTA's sums after the barrier (H200,
        // docs/notes/memory-bound-round3.md, "Thirty-sixth"). The barrier follows the pushes, which
        // the round waits for anyway, and lets the stage take its next row as early as before:
        // refilled after the round's wait instead, fp32's rows ran up to 3.6% slower.
        cluster_sums.send(dev::warp_row_sums<kLayer>(v), unsigned(i), g.parts, warps);
        nb::dev::named_barrier_sync(1, consumers);
        if (tid == 0 && i + kStages < sh.rows) copy_row(i + kStages, s);  // every warp has read stage s
        const dev::RowSums share =
            cluster_sums.receive_lane_share(unsigned(i), g.parts, warps, add_row_sums, dev::RowSums{0.0f, 0.0f});
        v = dev::add_across_lanes<kLayer>(share, 32);
      } else {
        dev::store_warp_row_sums<kLayer>(v, &warp_sums[b][tid >> 5]);
        nb::dev::named_barrier_sync(1, consumers);
        if (tid == 0 && i + kStages < sh.rows) copy_row(i + kStages, s);  // every warp has read stage s
        v = dev::add_padded_warp_row_sums<kLayer, kTmaMaxConsumers / 32>(warp_sums[b]);
      }
      const float mean_g = kLayer ? v.g * g.inv_n : 0.0f, mean_gx = v.gx * g.inv_n;
      T* const dx_row = a.dx + row * a.n + first;
#pragma unroll
      for (int k = 0; k < PPT; ++k) {
        if (!mine(k)) continue;
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
    const FloatPack<VEC>* held = sum == 0 ? dw : db;
#pragma unroll
    for (int k = 0; k < PPT; ++k)
      if (k * consumers + tid < part_packs)
        *reinterpret_cast<FloatPack<VEC>*>(end_sums + (std::size_t(k) * consumers + tid) * VEC) = held[k];
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
    return "fused, its rows fed by TMA: bulk copies of x and dy into shared-memory stages, each issued by "
           "thread 0 once every warp has read the stage (no producer warp), warps of two 16-byte packs a thread (four for RMSNorm's rows past 8 parts of two and "
           "LayerNorm's past 16, w then in shared memory), the column sums in registers; over a cluster each warp "
           "pushes its row sums to every CTA; fp32 over 16 parts and four packs go one ahead (a row's sums sent "
           "before the last row's totals are taken, dx from the stage again); rows of 16-byte packs";
  }
  static FusedPlan plan(const Layout& layout, const Problem& p, int vec) {
    return plan_fused_tma(p.dim("n"), vec, layout.column_sums());
  }
  // The plan's loop, packs a thread and stages: in turn (2 packs, kTmaStages); one ahead, LayerNorm's
  // fp32 clusters of 16 (2 packs, kTmaAheadStages) or the longest rows (kTmaWidePacksPerThread,
  // kTmaWideStages).
  template <bool kLayer, class T, class F>
  static void with_kernel(const FusedPlan& plan, F&& f) {
    constexpr int V = nb::dev::kPack16<T>, kWide = kTmaWidePacksPerThread;
    if (plan.vec != V) throw std::logic_error("fused_tma: a plan without 16-byte packs");
    if (plan.one_ahead && plan.parts == 1)
      throw std::logic_error("fused_tma: rows one ahead with no cluster to exchange with");
    const int ppt = plan.packs_per_thread, stages = plan.stages;
    const bool in_turn = !plan.one_ahead && ppt == kTmaPacksPerThread && stages == kTmaStages;
    if constexpr (!kLayer)  // RMSNorm's rows of one or two parts
      if (in_turn && plan.stages_aligned_at_run_time)
        return f(Kernel<T>(fused_tma<kLayer, T, V, false, kTmaPacksPerThread, kTmaStages, true>));
    if (plan.stages_aligned_at_run_time)
      throw std::logic_error("fused_tma: stages aligned at run time only in RMSNorm's in-turn loop");
    if (in_turn) return f(Kernel<T>(fused_tma<kLayer, T, V, false, kTmaPacksPerThread, kTmaStages>));
    if constexpr (kLayer && sizeof(T) == 4)  // LayerNorm's fp32 clusters of 16
      if (plan.one_ahead && ppt == kTmaPacksPerThread && stages == kTmaAheadStages)
        return f(Kernel<T>(fused_tma<kLayer, T, V, true, kTmaPacksPerThread, kTmaAheadStages>));
    if (plan.one_ahead && ppt == kWide && stages == kTmaWideStages)
      return f(Kernel<T>(fused_tma<kLayer, T, V, true, kWide, kTmaWideStages>));
    throw std::logic_error("fused_tma: no kernel for " + std::to_string(ppt) + " packs a thread and " +
                           std::to_string(stages) + " stages" + (plan.one_ahead ? ", one ahead" : ""));
  }
};

}  // namespace

std::unique_ptr<Variant> make_fused_tma_variant(const Layout& layout) {
  return std::make_unique<FusedVariant<TmaDesign>>(layout);
}

}  // namespace nb::rows_bwd
