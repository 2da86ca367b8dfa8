// Fused: each CTA (or cluster of CTAs, for long rows) owns a band of contiguous rows and reads x
// and dy once. Per row, its threads keep x and dy of their share in registers, add the two row
// sums over the row (shuffles, shared memory, DSMEM across the cluster), write dx, and add dy * xhat
// (and dy) to column sums kept for the whole band (in registers, or shared memory). One fp32
// partial row per band goes to the workspace, and a second small kernel adds the bands in order:
// no atomics, so the result is the same bits on every launch. Rows too long for registers stream
// twice (the second pass from L2), the column sums in shared memory.
#include <cooperative_groups.h>

#include <stdexcept>
#include <type_traits>

#include "harness/cuda_check.hpp"
#include "harness/errors.hpp"
#include "kernels/primitives/alignment.cuh"
#include "kernels/primitives/cluster_exchange.cuh"
#include "kernels/primitives/merge.cuh"
#include "kernels/rows/rows_bwd/args.cuh"
#include "kernels/rows/rows_bwd/column_totals.hpp"
#include "kernels/rows/rows_bwd/fused_plan.hpp"

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

struct Geometry {
  long long bands, packs, packs_per_part;
  int parts;
  float inv_n;
};

// The rows and packs one CTA works on: its cluster's band, its part of each row.
struct Share {
  long long row_begin, row_end, first_pack, end_pack, band;
};

__device__ __forceinline__ Share share_of(const Geometry& g, long long m) {
  const long long band = blockIdx.x / g.parts, part = blockIdx.x % g.parts;
  const long long first = part * g.packs_per_part;
  return {band * m / g.bands, (band + 1) * m / g.bands, first,
          first + g.packs_per_part < g.packs ? first + g.packs_per_part : g.packs, band};
}

// A cluster's row sums go through a ClusterExchange (kernels/primitives/cluster_exchange.cuh):
// each CTA pushes its slot's sums into every peer and waits on its own barrier, never on a
// cluster-wide one (whose release fence had waited on each row's dx stores: the membar stalls of
// docs/notes/memory-bound-round3.md). A row is one round.
template <int kSlots, int kParts>
using ClusterSums = nb::dev::ClusterExchange<2, kSlots, kParts>;  // RowSums: two words

// The row sums of each row slot (blockDim.x threads, a power of two <= 32 or a multiple of 32),
// then across the cluster's CTAs in rank order. Every thread of the slot gets the same sums.
// warp_scratch: one RowSums per warp, one of two buffers in turn from row to row (`round`): a
// thread reaches the next row's barrier only after reading this row's buffer, and the buffer is
// written again two rows on, after that barrier, so one CTA barrier a row suffices (and it is the
// one the exchange needs between a round's reads and the next round's pushes). A CTA of a
// cluster calls c.leave() before it exits.
template <int kSlots, int kParts>
__device__ __forceinline__ RowSums row_slot_sum(RowSums v, RowSums* warp_scratch, ClusterSums<kSlots, kParts>& c,
                                                unsigned round, int parts) {
  if (blockDim.x <= 32) {  // lane groups: shuffles within the slot (never a cluster)
    for (int offset = blockDim.x >> 1; offset > 0; offset >>= 1) v.merge(shfl_xor(v, offset));
    return v;
  }
  const int lane = threadIdx.x & 31, warps_per_slot = blockDim.x >> 5;
  v = nb::dev::warp_merge(v);
  if (lane == 0) warp_scratch[threadIdx.y * warps_per_slot + (threadIdx.x >> 5)] = v;
  __syncthreads();
  v = lane < warps_per_slot ? warp_scratch[threadIdx.y * warps_per_slot + lane] : RowSums{};
  v = nb::dev::warp_merge(v);
  if (parts == 1) return v;
  c.send(v, round, parts);
  return c.template receive<RowSums>(round, parts, [](RowSums& total, const RowSums& next) { total.merge(next); });
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
  extern __shared__ float4 dynamic_sums[];
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
  const auto mine_in = [&](long long row, int k) { return row < sh.row_end && k * int(blockDim.x) < owned; };
  PackWord<T, VEC> w_raw[PPT];
  load_pack_words<T, VEC>(a.w + first, stride, [&](int k) { return k * int(blockDim.x) < owned; }, w_raw);

  PackWord<T, VEC> x_raw[2][PPT], dy_raw[2][PPT];
  RowStats stats[2];
  const auto load_row = [&](long long row, auto buffer) {
    constexpr int b = decltype(buffer)::value;
    const auto mine = [&](int k) { return mine_in(row, k); };
    load_pack_words<T, VEC>(a.x + row * a.n + first, stride, mine, x_raw[b]);
    load_pack_words<T, VEC>(a.dy + row * a.n + first, stride, mine, dy_raw[b]);
    stats[b] = row < sh.row_end ? row_stats<kLayer>(a, row) : RowStats{0.0f, 0.0f};
  };
  // One row of the slot from buffer b, the slot's next row loaded into the other.
  const auto row_step = [&](long long row, unsigned round, auto buffer) {
    constexpr int b = decltype(buffer)::value;
    const bool active = row < sh.row_end;  // slots past the band's end still take part in the sums
    const RowStats st = stats[b];
    const auto mine = [&](int k) { return mine_in(row, k); };
    RowSums s{};
#pragma unroll
    for (int k = 0; k < PPT; ++k) {
      if (!mine(k)) continue;
      const FloatPack<VEC> x = widen<T, VEC>(x_raw[b][k]), dy = widen<T, VEC>(dy_raw[b][k]), w = widen<T, VEC>(w_raw[k]);
      FloatPack<VEC>& dw_sums = kSharedSums ? *my_sums(0, k) : dw[kSharedSums ? 0 : k];
      FloatPack<VEC>& db_sums = kSharedSums ? *my_sums(kSums - 1, k) : db[kSharedSums ? 0 : k];
      FloatPack<VEC> dwk = dw_sums, dbk = kLayer ? db_sums : dwk;
#pragma unroll
      for (int i = 0; i < VEC; ++i) {
        const float xh = xhat<kLayer>(x.v[i], st), gv = output_grad(dy.v[i], w.v[i]);
        s.g += gv;
        s.gx += gv * xh;
        dwk.v[i] += dy.v[i] * xh;
        if (kLayer) dbk.v[i] += dy.v[i];
      }
      dw_sums = dwk;
      if (kLayer) db_sums = dbk;
    }
    load_row(row + blockDim.y, std::integral_constant<int, 1 - b>{});
    s = row_slot_sum(s, warp_scratch[round & 1], cluster_sums, round, g.parts);
    const float mean_g = kLayer ? s.g * g.inv_n : 0.0f, mean_gx = s.gx * g.inv_n;
#pragma unroll
    for (int k = 0; k < PPT; ++k) {
      if (!active || k * int(blockDim.x) >= owned) continue;
      const FloatPack<VEC> x = widen<T, VEC>(x_raw[b][k]), dy = widen<T, VEC>(dy_raw[b][k]), w = widen<T, VEC>(w_raw[k]);
      FloatPack<VEC> dx;
#pragma unroll
      for (int i = 0; i < VEC; ++i)
        dx.v[i] = input_grad(output_grad(dy.v[i], w.v[i]), xhat<kLayer>(x.v[i], st), st.rstd, mean_g, mean_gx);
      store_from_float<T, VEC>(a.dx + row * a.n + first + k * stride, dx);
    }
  };

  load_row(sh.row_begin + threadIdx.y, std::integral_constant<int, 0>{});
  // Every slot takes the same number of rounds (the sums' barriers): the loop runs on the band's base.
  unsigned round = 0;
  for (long long base = sh.row_begin; base < sh.row_end; base += blockDim.y, ++round) {
    row_step(base + threadIdx.y, round, std::integral_constant<int, 0>{});
    base += blockDim.y, ++round;
    if (base >= sh.row_end) break;
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
  extern __shared__ float column_sums[];  // [sum][i][pack of the part]: sum_at(p, i)
  __shared__ RowSums warp_scratch[2][kStreamLanes / 32];  // row_slot_sum's two buffers
  __shared__ ClusterSums<1, kMaxStreamParts> cluster_sums;
  cluster_sums.enter(g.parts);
  const Share sh = share_of(g, a.m);
  const long long ppp = g.packs_per_part;
  float* dw_sums = column_sums;
  float* db_sums = column_sums + ppp * VEC;
  for (long long e = threadIdx.x; e < ppp * VEC * (kLayer ? 2 : 1); e += blockDim.x) column_sums[e] = 0.0f;
  __syncthreads();

  for (long long row = sh.row_begin; row < sh.row_end; ++row) {
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
    const unsigned round = unsigned(row - sh.row_begin);
    s = row_slot_sum(s, warp_scratch[round & 1], cluster_sums, round, g.parts);
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

template <class T>
using Kernel = void (*)(Args<T>, Geometry, float*);

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

template <bool kLayer, class T, class F>
void with_kernel(const FusedPlan& plan, F&& f) {
  constexpr int kVec = kPack16<T>;
  if (plan.vec == kVec) {
    if (plan.streamed()) return f(Kernel<T>(fused_streamed<kLayer, T, kVec>));
    return with_register_kernel<kLayer, T, kVec>(plan, f);
  }
  if (plan.streamed()) return f(Kernel<T>(fused_streamed<kLayer, T, 1>));
  return with_register_kernel<kLayer, T, 1>(plan, f);
}

cudaLaunchConfig_t launch_config(const FusedPlan& plan, long long bands, cudaStream_t stream, cudaLaunchAttribute& cluster) {
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(unsigned(bands * plan.parts));
  config.blockDim = dim3(unsigned(plan.lanes), unsigned(plan.rows_per_block));
  config.dynamicSmemBytes = plan.shared_bytes;
  config.stream = stream;
  cluster = {};
  cluster.id = cudaLaunchAttributeClusterDimension;
  cluster.val.clusterDim.x = unsigned(plan.parts);
  cluster.val.clusterDim.y = 1;
  cluster.val.clusterDim.z = 1;
  config.attrs = &cluster;
  config.numAttrs = plan.parts > 1 ? 1 : 0;
  return config;
}

// How many clusters of the plan's kernel run at once on the current device, after giving the
// kernel the shared memory and cluster size it needs.
template <class T>
long long resident_clusters(Kernel<T> kernel, const FusedPlan& plan) {
  if (plan.shared_bytes > 48 * 1024)
    NB_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(plan.shared_bytes)));
  if (plan.parts > kPortableClusterSize)
    NB_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  int count = 0;
  if (plan.parts == 1) {
    int device = 0, sms = 0;
    NB_CUDA_CHECK(cudaGetDevice(&device));
    NB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    NB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&count, kernel, plan.threads(), plan.shared_bytes));
    count *= sms;
  } else {
    cudaLaunchAttribute cluster;
    const cudaLaunchConfig_t config = launch_config(plan, 1, nullptr, cluster);
    const cudaError_t status = cudaOccupancyMaxActiveClusters(&count, kernel, &config);
    if (status != cudaSuccess) {
      cudaGetLastError();  // not sticky: clear it for the next variant's launch check
      throw Unsupported("fused: clusters of " + std::to_string(plan.parts) + " refused (" + cudaGetErrorString(status) + ")");
    }
  }
  if (count < 1)
    throw Unsupported("fused: this device runs no cluster of " + std::to_string(plan.parts) + " CTAs of " +
                      std::to_string(plan.threads()) + " threads with " + std::to_string(plan.shared_bytes) +
                      " bytes of shared memory");
  return count;
}

// 16-byte packs when N and every row pointer allow them.
template <class T>
bool packs_fit(const Args<T>& a) {
  return a.n % kPack16<T> == 0 && nb::dev::aligned16(a.x) && nb::dev::aligned16(a.dy) && nb::dev::aligned16(a.w) &&
         nb::dev::aligned16(a.dx);
}

int pack_elements(const Problem& p) { return int(16 / dtype_size(storage_type(p.dtype))); }

FusedPlan plan_of(const Layout& layout, const Problem& p, bool packs) {
  return plan_fused(p.dim("n"), packs ? pack_elements(p) : 1, layout.column_sums());
}

// The harness's buffers are aligned: packs whenever N allows them.
bool packs_expected(const Problem& p) { return p.dim("n") % pack_elements(p) == 0; }

class FusedVariant final : public Variant {
 public:
  explicit FusedVariant(const Layout& layout) : layout_(layout) {}

  std::string name() const override { return "fused"; }
  std::string kind() const override { return "fused"; }
  std::string idea() const override {
    return "a band of rows per CTA (cluster for long rows): dx from registers, dw/db column sums in registers "
           "over the band, one fp32 partial row per band added in order by a second kernel (no atomics)";
  }

  Support supports(const Problem& p) const override {
    const FusedPlan plan = plan_of(layout_, p, packs_expected(p));
    return plan.unsupported.empty() ? Support::yes() : Support::no(plan.unsupported);
  }

  // Bands never outnumber M / kMinBandRounds (band_count): room for that many partial rows.
  std::size_t workspace_bytes(const Problem& p) const override {
    const long long bands = std::min<long long>(kMaxBands, (p.dim("m") + kMinBandRounds - 1) / kMinBandRounds);
    return std::size_t(bands) * std::size_t(p.dim("n")) * sizeof(float) * std::size_t(layout_.column_sums());
  }

  // The occupancy queries and kernel attributes, outside the timed launches.
  void prepare(const Problem& p) override { launch_plan(p, packs_expected(p)); }

  void launch(const Problem& p, const DeviceTensors& t, void* workspace, cudaStream_t stream) override {
    dispatch_storage(p.dtype, [&](auto type) {
      using T = decltype(type);
      const Args<T> a = args_of<T>(layout_, p, t);
      if (layout_.layer()) run<true>(p, a, static_cast<float*>(workspace), stream);
      else run<false>(p, a, static_cast<float*>(workspace), stream);
    });
  }

 private:
  struct Cached {
    std::string problem;
    bool packs = false;
    FusedPlan plan;
    long long bands = 0;
  };

  template <class T, bool kLayer>
  Cached make_cached(const Problem& p, bool packs) const {
    Cached c{p.id(), packs, plan_of(layout_, p, packs), 0};
    if (!c.plan.unsupported.empty()) throw Unsupported("fused: " + c.plan.unsupported);
    with_kernel<kLayer, T>(c.plan, [&](Kernel<T> kernel) {
      c.bands = band_count(p.dim("m"), c.plan, resident_clusters(kernel, c.plan));
    });
    return c;
  }

  const Cached& launch_plan(const Problem& p, bool packs) {
    if (cached_.problem == p.id() && cached_.packs == packs) return cached_;
    dispatch_storage(p.dtype, [&](auto type) {
      using T = decltype(type);
      cached_ = layout_.layer() ? make_cached<T, true>(p, packs) : make_cached<T, false>(p, packs);
    });
    return cached_;
  }

  template <bool kLayer, class T>
  void run(const Problem& p, const Args<T>& a, float* partials, cudaStream_t stream) {
    const Cached& c = launch_plan(p, packs_fit(a));
    const Geometry g{c.bands, c.plan.packs, c.plan.packs_per_part, c.plan.parts, 1.0f / float(a.n)};
    with_kernel<kLayer, T>(c.plan, [&](Kernel<T> kernel) {
      cudaLaunchAttribute cluster;
      const cudaLaunchConfig_t config = launch_config(c.plan, c.bands, stream, cluster);
      NB_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, a, g, partials));
      NB_CHECK_LAUNCH();
    });
    void* const out[2] = {a.dw, a.db};
    launch_column_totals(p.dtype, partials, c.bands, a.n, kLayer ? 2 : 1, out, stream);
  }

  Layout layout_;
  Cached cached_;
};

}  // namespace

std::unique_ptr<Variant> make_fused_variant(const Layout& layout) { return std::make_unique<FusedVariant>(layout); }

}  // namespace nb::rows_bwd
