// Register row: x is read from DRAM once. A row of up to 16384 values (8192 one by one; 32768
// bf16/fp16 in packs) is held in one block's registers as stored (at most 32 values per thread, 64
// for the 2-byte rows past 16384, loaded as 16-byte packs of 4 floats or 8 bf16/fp16 when the row
// allows, else one by one; widened to fp32 at each pass) from
// the statistics to the write; short rows share a block in lane groups. The mean comes first, then
// the squared deviations from it, from the registers: the variance is exact as Welford's, with no
// division per value; the 2-byte rows held at 64 values a thread take both in one pass of sums
// shifted by the row's first values where a guard bounds their rounding (row_math.cuh), as do the
// 2-byte rows of 16384 where the device's DRAM rate asks for three blocks an SM (rows_in_flight.hpp).
// Longer rows of 16-byte packs are staged in shared memory over a persistent grid of clusters
// (overlapped_rows.cu for 2-byte rows of slices up to 32 KB, each row's cluster round overlapped
// with the next row's sums; staged_rows.cu for the rest); other rows split over a cluster of up to
// 8 blocks in registers (DSMEM sums), and rows too long for that stream their part three times.
// Rescales when (x - mean)^2 overflows (claims `wide`).
// rmsnorm_rows' register_row, plans and all.
#include <stdexcept>
#include <type_traits>

#include "kernels/primitives/alignment.cuh"
#include "kernels/primitives/row_tickets.cuh"
#include "kernels/primitives/storage.cuh"
#include "kernels/rows/layernorm_rows/row_math.cuh"
#include "kernels/rows/layernorm_rows/overlapped_rows.hpp"
#include "kernels/rows/layernorm_rows/spec.hpp"
#include "kernels/rows/layernorm_rows/staged_rows.hpp"
#include "kernels/rms/grid.hpp"
#include "kernels/rows/row_geometry.cuh"
#include "kernels/rows/row_plan.hpp"
#include "kernels/rows/row_reducers.cuh"
#include "kernels/rows/rows_in_flight.hpp"

namespace nb::layernorm_rows {
namespace {

using rows::ClusterReducer;
using rows::kMaxLanes;
using rows::LaneGroupReducer;
using rows::PartRange;
using rows::RowGeometry;
using rows::RowLayout;
using rows::RowPlan;

// y for one pack of the row; `at` is the pack's first column.
template <class T, int VEC>
__device__ __forceinline__ void store_y(const RowTensors<T>& t, long long row, long long n, long long at,
                                       const dev::FloatPack<VEC>& v, float mean, float rstd) {
  const dev::FloatPack<VEC> wp = dev::load_as_float<T, VEC>(t.w + at), bp = dev::load_as_float<T, VEC>(t.b + at);
  dev::store_from_float<T, VEC>(t.y + row * n + at, normalized<T>(v, wp, bp, mean, rstd));
}

// rstd is the reciprocal RMS of the centered row: row_inv_rms adds the squares (and rescales by a
// power of two when they overflow fp32; a NaN or an Inf in the row gives NaN). The row is held as
// stored (bf16 and fp16 two values a register) and widened at each pass; the row's addresses are
// made in the loop's body, not held through it (dev::opaque). One block a row reduces with
// BlockReducer, which holds none of a cluster's exchange state, but for the rows held at 64 values
// a thread (ClusterReducer of one part: launch_plan).
// kThreeBlocks: blocks of 512 lanes at three an SM (40 registers a thread; rows_in_flight.hpp).
template <class T, int VEC, int PPT, class Reducer, bool kThreeBlocks = false>
__global__ void __launch_bounds__(kThreeBlocks ? 512 : kMaxLanes, kThreeBlocks ? 3 : 1)
    layernorm_rows_register(RowTensors<T> t, RowGeometry g) {
  constexpr bool kHeld = rows::holds_as_stored(VEC, PPT);  // 64 values a thread
  // The statistics in one pass and one reduction (row_mean_rstd_one_pass) for the 2-byte rows held
  // at 64 values a thread (32768 values, one block) and for the blocks at three an SM, where two
  // passes spilled 144 bytes a thread at 40 registers and took 0.4553 ms at 16384 x 16384 bf16 on an
  // H200. The other blocks keep two passes: the one pass took 1.6-4.4% longer at 2048-4096 bf16 on an
  // H200 in each form tried (docs/notes/memory-bound-round3.md, "Twenty-first" and "Twenty-second").
  constexpr bool kOnePass =
      sizeof(T) == 2 && VEC > 1 && ((kHeld && std::is_same_v<Reducer, ClusterReducer>) || kThreeBlocks);
  __shared__ float scratch[32];
  __shared__ rows::RowExchange exchange;
  Reducer reduce(scratch, exchange, g.parts);
  const PartRange part = rows::part_range(g);
  const int owned = part.count() - threadIdx.x;                // > k*blockDim.x: pack k is mine
  const long long first = (part.first + threadIdx.x) * VEC;  // my first value in the row
  const int stride = blockDim.x * VEC;
  for (long long row0 = rows::first_row(g); row0 < g.rows; row0 += rows::row_step(g)) {
    const long long row = row0 + threadIdx.y;
    const bool active = row < g.rows;  // rows past the end still take part in the shuffles
    // The held rows compare against an opaque count at each use (ptxas spilled 4 bytes of their
    // instance otherwise); the others against the plain one (the opaque one cost them 3-4% on the H200).
    const auto mine = [&](int k) {
      return active && k * static_cast<int>(blockDim.x) < (kHeld ? dev::opaque(owned) : owned);
    };
    const int at = dev::opaque(static_cast<int>(first));
    dev::PackWord<T, VEC> raw[PPT];  // zeros past the row's end
    dev::load_pack_words<T, VEC>(t.x + row * g.n + at, stride, mine, raw);
    FirstPair<T> first_pair{};  // the row's first two values, every thread's (kOnePass)
    if (kOnePass && active) first_pair = load_first_pair(t.x + row * g.n);

    const auto each_pack = [&](auto f) {
#pragma unroll
      for (int k = 0; k < PPT; ++k) f(dev::rewiden<T, VEC>(raw[k]));
    };
    const auto each_pack_mine = [&](auto f) {
#pragma unroll
      for (int k = 0; k < PPT; ++k) f(dev::rewiden<T, VEC>(raw[k]), mine(k));
    };
    const auto each_centered = [&](float mean, auto f) {
#pragma unroll
      for (int k = 0; k < PPT; ++k)
        f(mine(k) ? centered(dev::rewiden<T, VEC>(raw[k]), mean) : dev::zero_float_pack<VEC>());
    };
    MeanRstd st;
    if constexpr (kOnePass) {
      st = row_mean_rstd_one_pass<VEC>(each_pack_mine, each_centered, reduce, first_pair_mean<T>(first_pair),
                                       float(g.n), g.inv_n, g.eps);
    } else {
      st = row_mean_rstd<VEC>(each_pack, each_centered, reduce, float(part.count() * VEC), g.inv_n, g.eps);
    }
    const float mean = st.mean, rstd = st.rstd;

#pragma unroll
    for (int k = 0; k < PPT; ++k)
      if (mine(k)) store_y<T, VEC>(t, row, g.n, at + k * stride, dev::rewiden<T, VEC>(raw[k]), mean, rstd);
    if (active && threadIdx.x == 0 && blockIdx.x % g.parts == 0) {
      t.mean[row] = mean;
      t.rstd[row] = rstd;
    }
  }
  reduce.finish();
}

// Rows too long for the registers of a cluster: each block streams its part three times (sum,
// squared deviations, write), the second and third mostly from L2.
template <class T, int VEC>
__global__ void __launch_bounds__(kMaxLanes) layernorm_rows_streamed(RowTensors<T> t, RowGeometry g) {
  __shared__ float scratch[32];
  __shared__ rows::RowExchange exchange;
  ClusterReducer reduce(scratch, exchange, g.parts);
  const PartRange part = rows::part_range(g);
  for (long long row = rows::first_row(g); row < g.rows; row += rows::row_step(g)) {
    const T* xr = t.x + row * g.n;
    const auto each_pack = [&](auto f) {
      for (long long pack = part.first + threadIdx.x; pack < part.end; pack += blockDim.x)
        f(dev::load_as_float<T, VEC>(xr + pack * VEC));
    };
    const auto each_centered = [&](float mean, auto f) {
      for (long long pack = part.first + threadIdx.x; pack < part.end; pack += blockDim.x)
        f(centered(dev::load_as_float<T, VEC>(xr + pack * VEC), mean));
    };
    const MeanRstd st = row_mean_rstd<VEC>(each_pack, each_centered, reduce, float(part.count() * VEC), g.inv_n, g.eps);
    const float mean = st.mean, rstd = st.rstd;
    for (long long pack = part.first + threadIdx.x; pack < part.end; pack += blockDim.x)
      store_y<T, VEC>(t, row, g.n, pack * VEC, dev::load_as_float<T, VEC>(xr + pack * VEC), mean, rstd);
    if (threadIdx.x == 0 && blockIdx.x % g.parts == 0) {
      t.mean[row] = mean;
      t.rstd[row] = rstd;
    }
  }
  reduce.finish();
}

// One block (or cluster) per row, or per rows_per_block rows: a grid of every row the problem has.
template <class Kernel, class T>
void launch_row_grid(Kernel kernel, const RowPlan& plan, const RowGeometry& g, const RowTensors<T>& t,
                     cudaStream_t stream) {
  const long long row_blocks = rms::ceil_div_ll(g.rows, plan.rows_per_block);
  rows::launch_clusters(kernel, plan, rms::grid_blocks(row_blocks, rms::kMaxGridX / plan.parts), 0, stream,
                                t, g);
}

// The most values a thread of Reducer's instances holds. The 2-byte rows held at 64 values a thread
// reduce with ClusterReducer (one part): ptxas spilled 140-224 bytes of that instance with
// BlockReducer's reductions, none with ClusterReducer's.
template <class T, int VEC, class Reducer>
constexpr int max_values_per_thread() {
  return std::is_same_v<Reducer, rows::BlockReducer> ? rows::max_elements_per_thread(VEC)
                                                      : rows::max_held_elements_per_thread(sizeof(T), VEC);
}

// The kernel instance for plan.packs_per_thread: PPT = 1, 2, 4, ... within the value budget.
template <class T, int VEC, class Reducer, int PPT = 1>
void launch_register(const RowPlan& plan, const RowGeometry& g, const RowTensors<T>& t, cudaStream_t stream) {
  if constexpr (VEC * PPT <= max_values_per_thread<T, VEC, Reducer>()) {
    if (plan.packs_per_thread == PPT) {
      if constexpr (sizeof(T) == 2 && VEC > 1 && PPT == 4 && std::is_same_v<Reducer, rows::BlockReducer>) {
        if (rows::launches_three_blocks(plan.lanes))
          return launch_row_grid(layernorm_rows_register<T, VEC, PPT, Reducer, true>, plan, g, t, stream);
      }
      return launch_row_grid(layernorm_rows_register<T, VEC, PPT, Reducer>, plan, g, t, stream);
    }
    return launch_register<T, VEC, Reducer, PPT * 2>(plan, g, t, stream);
  } else {
    throw std::logic_error("register_row: no kernel for this row plan");
  }
}

template <class T, int VEC>
void launch_plan(const RowPlan& plan, const RowGeometry& g, const RowTensors<T>& t, cudaStream_t stream) {
  switch (plan.layout) {
    case RowLayout::lane_groups: return launch_register<T, VEC, LaneGroupReducer>(plan, g, t, stream);
    case RowLayout::block:
      if (rows::holds_as_stored(VEC, plan.packs_per_thread))
        return launch_register<T, VEC, ClusterReducer>(plan, g, t, stream);
      return launch_register<T, VEC, rows::BlockReducer>(plan, g, t, stream);
    case RowLayout::cluster: return launch_register<T, VEC, ClusterReducer>(plan, g, t, stream);
    case RowLayout::streamed: return launch_row_grid(layernorm_rows_streamed<T, VEC>, plan, g, t, stream);
    case RowLayout::staged: break;
    case RowLayout::held_split: throw std::logic_error("register_row: layernorm_rows has no held split");
  }
  throw std::logic_error("register_row: the staged layout is launched by launch_rows");
}

template <class T>
void launch_rows(const Shape& s, const RowTensors<T>& t, unsigned long long* next_row, cudaStream_t stream) {
  constexpr int kElementBytes = static_cast<int>(sizeof(T));
  // 16-byte packs need every row to start on 16 bytes: N a whole number of packs, aligned buffers.
  const bool packs16 = s.n % dev::kPack16<T> == 0 && dev::aligned16(t.x, t.w) && dev::aligned16(t.b, t.y);
  // No held split: rmsnorm_rows' form with LayerNorm's three passes over the row took 0.4293 ms at
  // 4096 x 65536 bf16 on an H100, where these staged clusters took 0.4003 (notes, "Twentieth").
  constexpr rows::RowLayouts kLayouts = rows::RowLayouts{}.without_held_split();
  RowPlan plan = rows::plan_register_row(s.n, kElementBytes, packs16, kLayouts);
  if (plan.staged()) {
    const RowGeometry g = RowGeometry::of(plan, s.m, s.n, s.eps);
    if (launch_overlapped_rows<T>(plan, g, t, stream)) return;
    if (resident_staged_clusters<T>(plan) >= 1) return launch_staged_rows<T>(plan, g, t, next_row, stream);
    plan = rows::plan_register_row(s.n, kElementBytes, packs16, kLayouts.without_staged());
  }
  const RowGeometry g = RowGeometry::of(plan, s.m, s.n, s.eps);
  if (plan.vec > 1) launch_plan<T, dev::kPack16<T>>(plan, g, t, stream);
  else launch_plan<T, 1>(plan, g, t, stream);
}

void launch(const Problem& problem, const DeviceTensors& d, void* workspace, cudaStream_t stream) {
  const Shape s = Shape::of(problem);
  dispatch_storage(problem.dtype, [&](auto type) {
    using T = decltype(type);
    const RowTensors<T> t{d.ptr<const T>(X), d.ptr<const T>(W),  d.ptr<const T>(B),
                          d.ptr<T>(Y),       d.ptr<float>(MEAN), d.ptr<float>(RSTD)};
    launch_rows<T>(s, t, static_cast<unsigned long long*>(workspace), stream);
  });
}

}  // namespace

std::unique_ptr<Variant> make_register_row_variant() {
  return make_kernel_variant(
      {"register_row", "register",
       "rows <= 16384 (bf16/fp16: 32768) in registers as stored (<= 32 values per thread, 64 in 2-byte packs past "
       "16384), short rows share a block; longer rows "
       "in shared-memory slices over a persistent grid of clusters (<= 8 blocks) that take rows from a counter (by "
       "a fixed share at 64 KB slices), the "
       "next row copied in by cp.async, b's packs in registers (bf16/fp16 slices <= 32 KB: one block an SM, a ring "
       "of four rows, each row's cluster sums in flight while the next row is summed); mean, then squared "
       "deviations (bf16/fp16 rows past "
       "16384, and of 16384 at three blocks an SM on GPUs of > 30 GB/s of DRAM an SM: one pass of shifted sums where "
       "a guard bounds their rounding); x read once",
       launch, nullptr, [](const Problem&) { return dev::kRowCounterBytes; },
       {Distribution::offset, Distribution::tiny_var, Distribution::wide}});
}

}  // namespace nb::layernorm_rows
