#pragma once
// Posted rows: the register mode's rows of one CTA and one pack a thread (3_fused.cu), with each
// row's sums posted to the slot's warps and collected a row later instead of a CTA barrier a row:
// a warp sums row i + 1 and posts its warp's sums (an mbarrier arrival), then waits for row i's,
// which have had that whole pass to arrive, and writes row i's dx. Three rows' raw words a thread
// in registers: row i, row i + 1, row i + 2 in flight.
// In fused_registers the barrier held every warp of a CTA to the slowest one's loads each row: at
// rmsnorm_rows_bwd 131072 x 2048 bf16 on an H200, barrier stalls were its first (4.0 an issue).
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "kernels/primitives/mbarrier.cuh"
#include "kernels/primitives/merge.cuh"
#include "kernels/rows/rows_bwd/args.cuh"
#include "kernels/rows/rows_bwd/band_partials.cuh"
#include "kernels/rows/rows_bwd/fused_geometry.cuh"
#include "kernels/rows/rows_bwd/fused_plan.hpp"

namespace nb::rows_bwd {

// Rounds of posted sums a slot keeps: a warp posts row i + 4's sums only after collecting row
// i + 2's, which every warp of its slot posted after collecting row i's, so no warp still reads
// the buffer (or waits on the barrier phase) that the post reuses. Three would not do: row i + 3's
// post may come while a slower warp still reads row i's sums.
inline constexpr int kPostedRounds = 4;

// One slot (blockDim.x lanes, at least two warps) walks the rows threadIdx.y, + blockDim.y, ... of
// the CTA's band; the slots never wait on each other until the band's partial rows.
template <bool kLayer, class T, int VEC, int kMaxRegisters>
__global__ void __launch_bounds__(kMaxPostedThreads) __maxnreg__(kMaxRegisters)
    fused_posted(Args<T> a, Geometry g, float* __restrict__ partials) {
  constexpr int kSums = kLayer ? 2 : 1;
  __shared__ dev::RowSums posted_sums[kPostedRounds][kMaxLanes / 32];  // [round % 4][warp of the CTA]
  __shared__ std::uint64_t posted[kPostedRounds][kMaxPostedSlots];  // [round % 4][slot]: the warps' arrivals
  __shared__ float end_sums[kMaxPostedThreads * VEC];
  const int warps_per_slot = int(blockDim.x) >> 5;
  const int slot_warp0 = int(threadIdx.y) * warps_per_slot, lane = int(threadIdx.x) & 31;
  const int warp = slot_warp0 + (int(threadIdx.x) >> 5);
  if (threadIdx.x == 0)
    for (int r = 0; r < kPostedRounds; ++r) nb::dev::mbarrier_init(&posted[r][threadIdx.y], warps_per_slot);
  __syncthreads();

  const Share sh = share_of(g, a.m);
  const bool owns = int(threadIdx.x) < int(sh.end_pack - sh.first_pack);  // my pack of the row
  const long long first = (sh.first_pack + threadIdx.x) * VEC;
  const auto mine = [&](int) { return owns; };
  nb::dev::FloatPack<VEC> dw[1] = {nb::dev::zero_float_pack<VEC>()}, db[1] = {nb::dev::zero_float_pack<VEC>()};
  nb::dev::PackWord<T, VEC> w_raw[1];
  nb::dev::load_pack_words<T, VEC>(a.w + first, 0, mine, w_raw);

  // Row i of the slot, buffer i % 3.
  const long long slot_first = sh.row_begin + threadIdx.y, step = blockDim.y;
  const long long rows = slot_first < sh.row_end ? (sh.row_end - slot_first + step - 1) / step : 0;
  nb::dev::PackWord<T, VEC> x_raw[3][1], dy_raw[3][1];
  dev::RowStats stats[3];
  const auto load_row = [&](long long i, auto buffer) {
    constexpr int b = decltype(buffer)::value;
    if (i >= rows) return;
    const long long row = slot_first + i * step;
    nb::dev::load_pack_words<T, VEC>(a.x + row * a.n + first, 0, mine, x_raw[b]);
    nb::dev::load_pack_words<T, VEC>(a.dy + row * a.n + first, 0, mine, dy_raw[b]);
    stats[b] = dev::row_stats<kLayer>(a, row);
  };
  // Row i's sums (its column sums added on the way), posted as round i.
  const auto post_row = [&](long long i, auto buffer) {
    constexpr int b = decltype(buffer)::value;
    if (i >= rows) return;
    dev::RowSums s{};
    if (owns) {
      const auto x = nb::dev::widen<T, VEC>(x_raw[b][0]), dy = nb::dev::widen<T, VEC>(dy_raw[b][0]);
      dev::add_pack<kLayer>(x, dy, nb::dev::widen<T, VEC>(w_raw[0]), stats[b], s, dw[0], db[0]);
    }
    s = nb::dev::warp_merge(s);
    const int r = int(i % kPostedRounds);
    if (lane == 0) {
      posted_sums[r][warp] = s;
      nb::dev::mbarrier_arrive(&posted[r][threadIdx.y]);  // release: the sums above before the arrival
    }
  };
  // Row i's totals (round i: every warp of the slot has posted), then its dx.
  const auto finish_row = [&](long long i, auto buffer) {
    constexpr int b = decltype(buffer)::value;
    const int r = int(i % kPostedRounds);
    nb::dev::mbarrier_wait(&posted[r][threadIdx.y], unsigned(i / kPostedRounds) & 1u);
    dev::RowSums s = lane < warps_per_slot ? posted_sums[r][slot_warp0 + lane] : dev::RowSums{};
    s = nb::dev::warp_merge(s);  // the same bits in every warp of the slot
    if (!owns) return;
    const long long row = slot_first + i * step;
    const float mean_g = kLayer ? s.g * g.inv_n : 0.0f, mean_gx = s.gx * g.inv_n;
    const auto x = nb::dev::widen<T, VEC>(x_raw[b][0]), dy = nb::dev::widen<T, VEC>(dy_raw[b][0]);
    nb::dev::store_from_float<T, VEC>(
        a.dx + row * a.n + first,
        dev::pack_input_grad<kLayer>(x, dy, nb::dev::widen<T, VEC>(w_raw[0]), stats[b], mean_g, mean_gx));
  };
  // Row i: row i + 1 summed and posted, row i collected and written, row i + 3 loaded into its buffer.
  const auto row_step = [&](long long i, auto now, auto next) {
    post_row(i + 1, next);
    finish_row(i, now);
    load_row(i + 3, now);
  };
  using B0 = std::integral_constant<int, 0>;
  using B1 = std::integral_constant<int, 1>;
  using B2 = std::integral_constant<int, 2>;

  load_row(0, B0{});
  load_row(1, B1{});
  load_row(2, B2{});
  post_row(0, B0{});
  for (long long i = 0; i < rows; i += 3) {  // unrolled over the three buffers
    row_step(i, B0{}, B1{});
    if (i + 1 >= rows) break;
    row_step(i + 1, B1{}, B2{});
    if (i + 2 >= rows) break;
    row_step(i + 2, B2{}, B0{});
  }

  write_band_partials<kSums, false, VEC>(dw, db, end_sums, int(blockDim.x) * VEC, a, g, sh, partials);
}

}  // namespace nb::rows_bwd
