// Register row: a row of up to 16384 elements (8192 one by one; 32768 bf16/fp16 in packs) is held
// in one block's registers (at most 32 fp32 values per thread; the 2-byte rows past 16384 as
// stored, 64 a thread; loaded as 16-byte packs of 4 floats or 8 bf16/fp16 when the row allows,
// else one by one) from the reduction to the write, so x is read from DRAM once; short rows share a
// block in power-of-two lane groups. bf16/fp16 rows of up to 65536 in packs take one block that
// holds half of each thread's packs so and the other half in the thread's shared-memory slots
// (the held split). Longer rows of 16-byte packs are staged
// in shared memory over a persistent grid of clusters (staged_rows.cu); others split over a
// cluster of up to 8 blocks in registers (DSMEM sum), and rows too long even for that stream
// their part twice. Rescales when
// x^2 overflows (claims `wide`).
#include <stdexcept>

#include "harness/cuda_check.hpp"
#include "kernels/primitives/alignment.cuh"
#include "kernels/primitives/held_split_row.cuh"
#include "kernels/primitives/row_tickets.cuh"
#include "kernels/primitives/smem_opt_in.hpp"
#include "kernels/primitives/storage.cuh"
#include "kernels/rms/grid.hpp"
#include "kernels/rows/row_geometry.cuh"
#include "kernels/rows/row_plan.hpp"
#include "kernels/rows/row_reducers.cuh"
#include "kernels/rows/rows_in_flight.hpp"
#include "kernels/rows/rmsnorm_rows/spec.hpp"
#include "kernels/rows/rmsnorm_rows/staged_rows.hpp"

namespace nb::rmsnorm_rows {

using rows::ClusterReducer;
using rows::first_row;
using rows::kMaxLanes;
using rows::LaneGroupReducer;
using rows::launch_clusters;
using rows::max_held_elements_per_thread;
using rows::part_range;
using rows::PartRange;
using rows::plan_register_row;
using rows::row_inv_rms;
using rows::row_step;
using rows::RowGeometry;
using rows::RowLayout;
using rows::RowLayouts;
using rows::RowPlan;

namespace {

// y = v * inv * w for one pack; y and w point at the pack.
template <class T, int VEC>
__device__ __forceinline__ void store_weighted(T* y, const T* w, const dev::FloatPack<VEC>& v, float inv) {
  const dev::FloatPack<VEC> wp = dev::load_as_float<T, VEC>(w);
  dev::FloatPack<VEC> out;
#pragma unroll
  for (int i = 0; i < VEC; ++i) out.v[i] = v.v[i] * inv * wp.v[i];
  dev::store_from_float<T, VEC>(y, out);
}

// Rows past the 32-value budget (bf16 and fp16 rows of up to 32768 at 64 values a thread) are held
// as stored, two values a register, widened at each of their two passes, with their addresses made
// in the loop's body (dev::opaque), as are the blocks at three an SM (kThreeBlocks: 512 lanes, 40
// registers a thread; kernels/rows/rows_in_flight.hpp); the others hold their fp32 values.
template <class T, int VEC, int PPT, class Reducer, bool kThreeBlocks = false>
__global__ void __launch_bounds__(kThreeBlocks ? 512 : kMaxLanes, kThreeBlocks ? 3 : 1)
    rmsnorm_rows_register(const T* __restrict__ x, const T* __restrict__ w, T* __restrict__ y, RowGeometry g) {
  constexpr bool kHeld = rows::holds_as_stored(VEC, PPT) || kThreeBlocks;
  __shared__ float scratch[32];
  __shared__ rows::RowExchange exchange;
  Reducer reduce(scratch, exchange, g.parts);
  const PartRange part = part_range(g);
  const int owned = part.count() - threadIdx.x;                // > k*blockDim.x: pack k is mine
  const long long first = (part.first + threadIdx.x) * VEC;  // my first element in the row
  const int stride = blockDim.x * VEC;
  for (long long row0 = first_row(g); row0 < g.rows; row0 += row_step(g)) {
    const long long row = row0 + threadIdx.y;
    const bool active = row < g.rows;  // rows past the end still take part in the shuffles
    const long long at = kHeld ? dev::opaque(static_cast<int>(first)) : first;
    dev::RowPacks<T, VEC, PPT, kHeld> v;
    const auto mine = [&](int k) { return active && k * static_cast<int>(blockDim.x) < owned; };
    v.load(x + row * g.n + at, stride, mine);
    const auto each_pack = [&](auto f) {
#pragma unroll
      for (int k = 0; k < PPT; ++k) f(v[k]);
    };
    const float inv = row_inv_rms<VEC>(each_pack, reduce, g.inv_n, g.eps);
#pragma unroll
    for (int k = 0; k < PPT; ++k)
      if (active && k * static_cast<int>(blockDim.x) < owned)
        store_weighted<T, VEC>(y + row * g.n + at + k * stride, w + at + k * stride, v[k], inv);
  }
  reduce.finish();
}

// bf16/fp16 rows of 32768 < N <= 65536 in 16-byte packs (the held split): a block of up to 512
// lanes a row, 64 values a thread held as stored in registers and 64 more in the thread's own
// shared-memory slots (dev::HeldSplitRow), two blocks an SM, a block for every row.
template <class T>
__global__ void __launch_bounds__(rows::kMaxRegisterBlockLanes, 2)
    rmsnorm_rows_held_split(const T* __restrict__ x, const T* __restrict__ w, T* __restrict__ y, RowGeometry g) {
  constexpr int kVec = dev::kPack16<T>;
  extern __shared__ __align__(128) uint4 slots[];  // past 336 bytes of statics (16 mod 32); measured level
  __shared__ float scratch[32];
  __shared__ rows::RowExchange exchange;  // unused by BlockReducer
  rows::BlockReducer reduce(scratch, exchange, 1);
  for (long long row = blockIdx.x; row < g.rows; row += gridDim.x) {
    // The row's offsets made in the loop's body (dev::opaque), not held through it in registers.
    dev::HeldSplitRow<T, rows::kHeldSplitPacks> r{slots, dev::opaque(static_cast<int>(blockDim.x)),
                                                  static_cast<int>(g.packs) - static_cast<int>(threadIdx.x)};
    const int at = dev::opaque(static_cast<int>(threadIdx.x) * kVec);
    r.load(x + row * g.n + at);
    const float inv = row_inv_rms<kVec>([&](auto f) { r.each_pack(f); }, reduce, g.inv_n, g.eps);
    r.each_mine([&](const dev::FloatPack<kVec>& v, int k) {
      const int col = at + r.offset(k);
      store_weighted<T, kVec>(y + row * g.n + col, w + col, v, inv);
    });
  }
}

// Rows too long for the registers of a cluster: each block streams its part twice.
template <class T, int VEC>
__global__ void __launch_bounds__(kMaxLanes)
    rmsnorm_rows_streamed(const T* __restrict__ x, const T* __restrict__ w, T* __restrict__ y, RowGeometry g) {
  __shared__ float scratch[32];
  __shared__ rows::RowExchange exchange;
  ClusterReducer reduce(scratch, exchange, g.parts);
  const PartRange part = part_range(g);
  for (long long row = first_row(g); row < g.rows; row += row_step(g)) {
    const T* xr = x + row * g.n;
    const auto each_pack = [&](auto f) {
      for (long long pack = part.first + threadIdx.x; pack < part.end; pack += blockDim.x)
        f(dev::load_as_float<T, VEC>(xr + pack * VEC));
    };
    const float inv = row_inv_rms<VEC>(each_pack, reduce, g.inv_n, g.eps);
    for (long long pack = part.first + threadIdx.x; pack < part.end; pack += blockDim.x)
      store_weighted<T, VEC>(y + row * g.n + pack * VEC, w + pack * VEC, dev::load_as_float<T, VEC>(xr + pack * VEC),
                             inv);
  }
  reduce.finish();
}

// One block (or cluster) per row, or per rows_per_block rows: a grid of every row the problem has.
template <class Kernel, class T>
void launch_row_grid(Kernel kernel, const RowPlan& plan, const RowGeometry& g, const T* x, const T* w, T* y,
                     cudaStream_t stream) {
  const long long row_blocks = rms::ceil_div_ll(g.rows, plan.rows_per_block);
  launch_clusters(kernel, plan, rms::grid_blocks(row_blocks, rms::kMaxGridX / plan.parts), 0, stream, x, w, y, g);
}

// The kernel instance for plan.packs_per_thread: PPT = 1, 2, 4, ... within the element budget.
template <class T, int VEC, class Reducer, int PPT = 1>
void launch_register(const RowPlan& plan, const RowGeometry& g, const T* x, const T* w, T* y, cudaStream_t stream) {
  if constexpr (VEC * PPT <= max_held_elements_per_thread(sizeof(T), VEC)) {
    if (plan.packs_per_thread == PPT) {
      if constexpr (sizeof(T) == 2 && VEC > 1 && PPT == 4) {
        if (plan.layout == RowLayout::block && rows::launches_three_blocks(plan.lanes))
          return launch_row_grid(rmsnorm_rows_register<T, VEC, PPT, Reducer, true>, plan, g, x, w, y, stream);
      }
      return launch_row_grid(rmsnorm_rows_register<T, VEC, PPT, Reducer>, plan, g, x, w, y, stream);
    }
    return launch_register<T, VEC, Reducer, PPT * 2>(plan, g, x, w, y, stream);
  } else {
    throw std::logic_error("register_row: no kernel for this row plan");
  }
}

// The held split's opt-in to its shared memory, once per storage type; false where the device
// refuses it (launch_rows then plans the row without the held split).
template <class T>
bool held_split_allowed() {
  if constexpr (sizeof(T) == 2) return dynamic_smem_allowed<rmsnorm_rows_held_split<T>, rows::kMaxHeldSplitSmemBytes>();
  return false;
}

template <class T, int VEC>
void launch_held_split(const RowPlan& plan, const RowGeometry& g, const T* x, const T* w, T* y, cudaStream_t stream) {
  if constexpr (sizeof(T) == 2 && VEC == dev::kPack16<T>) {
    launch_clusters(rmsnorm_rows_held_split<T>, plan, rms::grid_blocks(g.rows),
                    static_cast<std::size_t>(plan.held_split_smem_bytes()), stream, x, w, y, g);
  } else {
    throw std::logic_error("register_row: the held split takes 16-byte packs of 2-byte values");
  }
}

template <class T, int VEC>
void launch_plan(const RowPlan& plan, const RowGeometry& g, const T* x, const T* w, T* y, cudaStream_t stream) {
  switch (plan.layout) {
    case RowLayout::lane_groups: return launch_register<T, VEC, LaneGroupReducer>(plan, g, x, w, y, stream);
    case RowLayout::block:
    case RowLayout::cluster: return launch_register<T, VEC, ClusterReducer>(plan, g, x, w, y, stream);
    case RowLayout::streamed: return launch_row_grid(rmsnorm_rows_streamed<T, VEC>, plan, g, x, w, y, stream);
    case RowLayout::held_split: return launch_held_split<T, VEC>(plan, g, x, w, y, stream);
    case RowLayout::staged: break;
  }
  throw std::logic_error("register_row: the staged layout is launched by launch_rows");
}

template <class T>
void launch_rows(const Shape& s, const T* x, const T* w, T* y, unsigned long long* next_row, cudaStream_t stream) {
  constexpr int kElementBytes = static_cast<int>(sizeof(T));
  // 16-byte packs need every row to start on 16 bytes: N a whole number of packs, aligned buffers.
  const bool packs16 = s.n % dev::kPack16<T> == 0 && dev::aligned16(x) && dev::aligned16(w) && dev::aligned16(y);
  constexpr RowLayouts kWithoutHeldSplit = RowLayouts{}.without_held_split();
  RowPlan plan = plan_register_row(s.n, kElementBytes, packs16);
  if (plan.held_split() && !held_split_allowed<T>())
    plan = plan_register_row(s.n, kElementBytes, packs16, kWithoutHeldSplit);
  if (plan.staged()) {
    if (resident_staged_clusters<T>(plan) >= 1)
      return launch_staged_rows<T>(plan, RowGeometry::of(plan, s.m, s.n, s.eps), x, w, y, next_row, stream);
    plan = plan_register_row(s.n, kElementBytes, packs16, kWithoutHeldSplit.without_staged());
  }
  const RowGeometry g = RowGeometry::of(plan, s.m, s.n, s.eps);
  if (plan.vec > 1) launch_plan<T, dev::kPack16<T>>(plan, g, x, w, y, stream);
  else launch_plan<T, 1>(plan, g, x, w, y, stream);
}

void launch(const Problem& problem, const DeviceTensors& t, void* workspace, cudaStream_t stream) {
  const Shape s = Shape::of(problem);
  dispatch_storage(problem.dtype, [&](auto type) {
    using T = decltype(type);
    launch_rows<T>(s, t.ptr<const T>(X), t.ptr<const T>(W), t.ptr<T>(Y), static_cast<unsigned long long*>(workspace),
                   stream);
  });
}

}  // namespace

std::unique_ptr<Variant> make_register_row_variant() {
  return make_kernel_variant(
      {"register_row", "register",
       "rows <= 16384 (bf16/fp16: 32768) in registers (<= 32 fp32 values per thread; 2-byte rows past 16384 as "
       "stored, 64 a thread), short rows share a block; bf16/fp16 rows <= 65536 a block each, 64 values a thread "
       "held as stored and 64 in its shared-memory slots; longer rows "
       "in shared-memory slices over a persistent grid of clusters (<= 8 blocks) that take rows from a counter (by "
       "a fixed share at 64 KB slices), the "
       "next row copied in by cp.async; x read once",
       launch, nullptr, [](const Problem&) { return dev::kRowCounterBytes; }, {Distribution::wide}});
}

}  // namespace nb::rmsnorm_rows
