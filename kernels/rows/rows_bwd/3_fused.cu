// Fused: each CTA (or cluster of CTAs, for long rows) owns a band of rows (every bands-th row:
// fused_geometry.cuh) and reads x and dy once. Per row, its threads keep x and dy of their share in
// registers, add the two row sums over the row (shuffles, shared memory, DSMEM across the
// cluster), write dx, and add dy * xhat (and dy) to column sums kept for the whole band (in
// registers, or shared memory). One fp32 partial row per band goes to the workspace, and a second
// small kernel adds the bands in order: no atomics, so the result is the same bits on every
// launch. Rows too long for registers stream twice (the second pass from L2), the column sums in
// shared memory. `fused_tma` is the same design with its rows fed into shared memory by TMA
// (5_fused_tma.cu).
#include <cooperative_groups.h>

#include <stdexcept>
#include <type_traits>

#include "kernels/primitives/alignment.cuh"
#include "kernels/primitives/cluster_exchange.cuh"
#include "kernels/rows/rows_bwd/args.cuh"
#include "kernels/rows/rows_bwd/column_totals.hpp"
#include "kernels/rows/rows_bwd/fused_geometry.cuh"
#include "kernels/rows/rows_bwd/fused_plan.hpp"
#include "kernels/rows/rows_bwd/fused_variant.cuh"
#include "kernels/rows/rows_bwd/warp_row_sums.cuh"

namespace nb::rows_bwd {
namespace {

using namespace dev;
using nb::dev::FloatPack;
using nb::dev::kPack16;
using nb::dev::load_as_float;
using nb::dev::load_pack_words;
using nb::dev::PackWord;
using nb::dev::widen;
using nb::dev::store_from_float;

// The row sums of each row slot (blockDim.x threads, a power of two <= 32 or a multiple of 32),
// then across the cluster's CTAs in rank order. Every thread of the slot gets the same sums.
// warp_scratch: one RowSums per warp, one of two buffers in turn from row to row (`round`): a
// thread reaches the next row's barrier only after reading this row's buffer, and the buffer is
// written again two rows on, after that barrier, so one CTA barrier a row suffices (and it is the
// one the exchange needs between a round's reads and the next round's pushes). A CTA of a
// cluster calls c.leave() before it exits. (A named barrier a slot measured 0.2-1% faster at N =
// 512-1024 on the H200, but racecheck does not follow a named barrier beside __syncthreads:
// docs/sanitizers.md.)
template <bool kLayer, int kSlots, int kParts>
__device__ __forceinline__ RowSums row_slot_sum(RowSums v, RowSums* warp_scratch, ClusterSums<kSlots, kParts>& c,
                                                unsigned round, int parts) {
  if (blockDim.x <= 32) {  // lane groups: shuffles within the slot (never a cluster)
    for (int offset = blockDim.x >> 1; offset > 0; offset >>= 1) v.merge(shfl_xor(v, offset));
    return v;
  }
  const int warps_per_slot = blockDim.x >> 5;
  RowSums* const slot_scratch = warp_scratch + threadIdx.y * warps_per_slot;
  store_warp_row_sums<kLayer>(v, slot_scratch + (threadIdx.x >> 5));
  __syncthreads();
  v = add_warp_row_sums<kLayer>(slot_scratch, warps_per_slot);
  if (parts == 1) return v;
  c.send(v, round, parts);
  return c.template receive_by_lanes<RowSums>(round, parts,
                                              [](RowSums& total, const RowSums& next) { total.merge(next); });
}

// Register mode: PPT packs of VEC elements per thread, blockDim.y row slots. Each slot's next row
// (the raw words of x and dy, and its saved statistics) is loaded before this row's sums wait on
// the CTA and the cluster, into the other of two buffers (the loop unrolled over them, so no
// register move waits on a load); g and xhat are computed again from the raw words for dx rather
// than held, and w is loaded once. The column sums stay in registers, or in shared memory where a
// thread's raw words would crowd them out (shared_column_sums, fused_plan.hpp).
template <bool kLayer, class T, int VEC, int PPT>
__global__ void __launch_bounds__(kMaxLanes, 1)
    fused_registers(Args<T> a, Geometry g, float* __restrict__ partials) {
  constexpr bool kSharedSums = shared_column_sums(PPT, VEC);
  constexpr int kSums = kLayer ? 2 : 1;
  constexpr int kHeld = kSharedSums ? 1 : PPT;  // packs of column sums held in registers
  __shared__ RowSums warp_scratch[2][kMaxLanes / 32];  // row_slot_sum's two buffers
  __shared__ ClusterSums<kMaxLanes / 32, kMaxRegisterParts> cluster_sums;
  // The column sums of every slot, [sum][slot][pack of the part][i]: the whole band's (dynamic,
  // kSharedSums), or one sum's at a time at the band's end.
  // Aligned past 784-41488 bytes of statics (16 mod 32), as the staged rows' slices.
  extern __shared__ __align__(128) float4 dynamic_sums[];
  __shared__ float end_sums[kSharedSums ? 1 : kMaxLanes * PPT * VEC];
  float* const slot_sums = kSharedSums ? reinterpret_cast<float*>(dynamic_sums) : end_sums;
  const int per_slot = blockDim.x * PPT * VEC;
  const auto my_sums = [&](int sum, int k) {
    return reinterpret_cast<FloatPack<VEC>*>(slot_sums + (sum * int(blockDim.y) + int(threadIdx.y)) * per_slot +
                                             (k * int(blockDim.x) + int(threadIdx.x)) * VEC);
  };
  cluster_sums.enter(g.parts);
  const Share sh = share_of(g, a.m);
  const int owned = int(sh.end_pack - sh.first_pack) - int(threadIdx.x);  // pack k is mine if k * lanes < owned
  const long long first = (sh.first_pack + threadIdx.x) * VEC;             // my first element of the row
  const long long stride = (long long)blockDim.x * VEC;                    // elements between my packs
  FloatPack<VEC> dw[kHeld], db[kHeld];
#pragma unroll
  for (int k = 0; k < kHeld; ++k) dw[k] = nb::dev::zero_float_pack<VEC>(), db[k] = nb::dev::zero_float_pack<VEC>();
  if constexpr (kSharedSums) {
#pragma unroll
    for (int k = 0; k < PPT; ++k)
      for (int sum = 0; sum < kSums; ++sum) *my_sums(sum, k) = nb::dev::zero_float_pack<VEC>();
  }
  // r counts the band's rows (Share::row gives the row of x).
  const auto mine_in = [&](long long r, int k) { return r < sh.rows && k * int(blockDim.x) < owned; };
  PackWord<T, VEC> w_raw[PPT];
  load_pack_words<T, VEC>(a.w + first, stride, [&](int k) { return k * int(blockDim.x) < owned; }, w_raw);

  PackWord<T, VEC> x_raw[2][PPT], dy_raw[2][PPT];
  RowStats stats[2];
  const auto load_row = [&](long long r, auto buffer) {
    constexpr int b = decltype(buffer)::value;
    const auto mine = [&](int k) { return mine_in(r, k); };
    const long long row = sh.row(r);
    load_pack_words<T, VEC>(a.x + row * a.n + first, stride, mine, x_raw[b]);
    load_pack_words<T, VEC>(a.dy + row * a.n + first, stride, mine, dy_raw[b]);
    stats[b] = r < sh.rows ? row_stats<kLayer>(a, row) : RowStats{0.0f, 0.0f};
  };
  // One row of the slot from buffer b, the slot's next row loaded into the other.
  const auto row_step = [&](long long r, unsigned round, auto buffer) {
    constexpr int b = decltype(buffer)::value;
    const bool active = r < sh.rows;  // slots past the band's end still take part in the sums
    const RowStats st = stats[b];
    const auto mine = [&](int k) { return mine_in(r, k); };
    RowSums s{};
#pragma unroll
    for (int k = 0; k < PPT; ++k) {
      if (!mine(k)) continue;
      const FloatPack<VEC> x = widen<T, VEC>(x_raw[b][k]), dy = widen<T, VEC>(dy_raw[b][k]), w = widen<T, VEC>(w_raw[k]);
      FloatPack<VEC>& dw_sums = kSharedSums ? *my_sums(0, k) : dw[kSharedSums ? 0 : k];
      FloatPack<VEC>& db_sums = kSharedSums ? *my_sums(kSums - 1, k) : db[kSharedSums ? 0 : k];
      FloatPack<VEC> dwk = dw_sums, dbk = kLayer ? db_sums : dwk;
      add_pack<kLayer>(x, dy, w, st, s, dwk, dbk);
      dw_sums = dwk;
      if (kLayer) db_sums = dbk;
    }
    load_row(r + blockDim.y, std::integral_constant<int, 1 - b>{});
    s = row_slot_sum<kLayer>(s, warp_scratch[round & 1], cluster_sums, round, g.parts);
    const float mean_g = kLayer ? s.g * g.inv_n : 0.0f, mean_gx = s.gx * g.inv_n;
#pragma unroll
    for (int k = 0; k < PPT; ++k) {
      if (!active || k * int(blockDim.x) >= owned) continue;
      const FloatPack<VEC> x = widen<T, VEC>(x_raw[b][k]), dy = widen<T, VEC>(dy_raw[b][k]), w = widen<T, VEC>(w_raw[k]);
      store_from_float<T, VEC>(a.dx + sh.row(r) * a.n + first + k * stride,
                               pack_input_grad<kLayer>(x, dy, w, st, mean_g, mean_gx));
    }
  };

  load_row(threadIdx.y, std::integral_constant<int, 0>{});
  // Every slot takes the same number of rounds (the sums' barriers): the loop runs on the band's base.
  unsigned round = 0;
  for (long long base = 0; base < sh.rows; base += blockDim.y, ++round) {
    row_step(base + threadIdx.y, round, std::integral_constant<int, 0>{});
    base += blockDim.y, ++round;
    if (base >= sh.rows) break;
    row_step(base + threadIdx.y, round, std::integral_constant<int, 1>{});
  }

  cluster_sums.leave(g.parts);

  // The band's partial rows: each slot's column sums, added over the slots in order.
  const long long part_elements = (sh.end_pack - sh.first_pack) * VEC;
  const int threads = blockDim.x * blockDim.y;
  const int tid = threadIdx.y * blockDim.x + threadIdx.x;
#pragma unroll
  for (int sum = 0; sum < kSums; ++sum) {
    const float* sums = slot_sums + (kSharedSums ? sum * int(blockDim.y) * per_slot : 0);
    if constexpr (!kSharedSums) {
      const FloatPack<VEC>* held = sum == 0 ? dw : db;
#pragma unroll
      for (int k = 0; k < PPT; ++k) *my_sums(0, k) = held[k];
    }
    float* out = partials + (sum * g.bands + sh.band) * a.n + sh.first_pack * VEC;
    __syncthreads();
    for (long long e = tid; e < part_elements; e += threads) {
      float total = sums[e];
      for (int slot = 1; slot < int(blockDim.y); ++slot) total += sums[slot * per_slot + e];
      out[e] = total;
    }
    if (!kSharedSums) __syncthreads();  // before the next sum overwrites the buffer
  }
}

// Streamed mode: rows too long for registers. One row at a time per CTA; its part of the row is
// read once for the row sums and the column sums (kept in shared memory, pack-interleaved so that
// consecutive threads hit consecutive banks), and once more, from L2, for dx.
template <bool kLayer, class T, int VEC>
__global__ void __launch_bounds__(kStreamLanes)
    fused_streamed(Args<T> a, Geometry g, float* __restrict__ partials) {
  // [sum][i][pack of the part]: sum_at(p, i); aligned past the statics (16 mod 32 bytes).
  extern __shared__ __align__(128) float column_sums[];
  __shared__ RowSums warp_scratch[2][kStreamLanes / 32];  // row_slot_sum's two buffers
  __shared__ ClusterSums<1, kMaxStreamParts> cluster_sums;
  cluster_sums.enter(g.parts);
  const Share sh = share_of(g, a.m);
  const long long ppp = g.packs_per_part;
  float* dw_sums = column_sums;
  float* db_sums = column_sums + ppp * VEC;
  for (long long e = threadIdx.x; e < ppp * VEC * (kLayer ? 2 : 1); e += blockDim.x) column_sums[e] = 0.0f;
  __syncthreads();

  for (long long r = 0; r < sh.rows; ++r) {
    const long long row = sh.row(r);
    const RowStats st = row_stats<kLayer>(a, row);
    const T* x = a.x + row * a.n;
    const T* dy = a.dy + row * a.n;
    RowSums s{};
    for (long long pack = sh.first_pack + threadIdx.x; pack < sh.end_pack; pack += blockDim.x) {
      const FloatPack<VEC> xp = load_as_float<T, VEC>(x + pack * VEC), dyp = load_as_float<T, VEC>(dy + pack * VEC);
      const FloatPack<VEC> wp = load_as_float<T, VEC>(a.w + pack * VEC);
      const long long p = pack - sh.first_pack;
#pragma unroll
      for (int i = 0; i < VEC; ++i) {
        const float xh = xhat<kLayer>(xp.v[i], st), gv = dyp.v[i] * wp.v[i];
        s.g += gv;
        s.gx += gv * xh;
        dw_sums[i * ppp + p] += dyp.v[i] * xh;
        if (kLayer) db_sums[i * ppp + p] += dyp.v[i];
      }
    }
    const unsigned round = unsigned(r);
    s = row_slot_sum<kLayer>(s, warp_scratch[round & 1], cluster_sums, round, g.parts);
    const float mean_g = kLayer ? s.g * g.inv_n : 0.0f, mean_gx = s.gx * g.inv_n;
    for (long long pack = sh.first_pack + threadIdx.x; pack < sh.end_pack; pack += blockDim.x) {
      const FloatPack<VEC> xp = load_as_float<T, VEC>(x + pack * VEC), dyp = load_as_float<T, VEC>(dy + pack * VEC);
      const FloatPack<VEC> wp = load_as_float<T, VEC>(a.w + pack * VEC);
      FloatPack<VEC> dx;
#pragma unroll
      for (int i = 0; i < VEC; ++i)
        dx.v[i] = input_grad(dyp.v[i] * wp.v[i], xhat<kLayer>(xp.v[i], st), st.rstd, mean_g, mean_gx);
      store_from_float<T, VEC>(a.dx + row * a.n + pack * VEC, dx);
    }
  }

  cluster_sums.leave(g.parts);

  // Each thread wrote only its own packs' sums: no barrier before reading them back.
  for (int sum = 0; sum < (kLayer ? 2 : 1); ++sum) {
    const float* sums = sum == 0 ? dw_sums : db_sums;
    float* out = partials + (sum * g.bands + sh.band) * a.n;
    for (long long pack = sh.first_pack + threadIdx.x; pack < sh.end_pack; pack += blockDim.x)
#pragma unroll
      for (int i = 0; i < VEC; ++i) out[pack * VEC + i] = sums[i * ppp + pack - sh.first_pack];
  }
}

// Calls f with the kernel instance of the plan.
template <bool kLayer, class T, int VEC, int PPT = 1, class F>
void with_register_kernel(const FusedPlan& plan, F&& f) {
  if constexpr (PPT * VEC <= kMaxElementsPerThread) {
    if (plan.packs_per_thread == PPT) return f(Kernel<T>(fused_registers<kLayer, T, VEC, PPT>));
    return with_register_kernel<kLayer, T, VEC, PPT * 2>(plan, f);
  } else {
    throw std::logic_error("fused: no kernel for " + std::to_string(plan.packs_per_thread) + " packs per thread");
  }
}

// The register and streamed modes' design for FusedVariant (fused_variant.cuh).
struct RegisterDesign {
  static std::string name() { return "fused"; }
  static std::string idea() {
    return "a band of rows per CTA (cluster for long rows): dx from registers, dw/db column sums in registers "
           "over the band, one fp32 partial row per band added in order by a second kernel (no atomics)";
  }
  static FusedPlan plan(const Layout& layout, const Problem& p, int vec) {
    return plan_fused(p.dim("n"), vec, layout.column_sums());
  }
  template <bool kLayer, class T, class F>
  static void with_kernel(const FusedPlan& plan, F&& f) {
    constexpr int kVec = kPack16<T>;
    if (plan.vec == kVec) {
      if (plan.streamed()) return f(Kernel<T>(fused_streamed<kLayer, T, kVec>));
      return with_register_kernel<kLayer, T, kVec>(plan, f);
    }
    if (plan.streamed()) return f(Kernel<T>(fused_streamed<kLayer, T, 1>));
    return with_register_kernel<kLayer, T, 1>(plan, f);
  }
};

}  // namespace

std::unique_ptr<Variant> make_fused_variant(const Layout& layout) {
  return std::make_unique<FusedVariant<RegisterDesign>>(layout);
}

}  // namespace nb::rows_bwd
