// Staged rows: a persistent grid of clusters (up to 8 blocks) takes rows as a counter hands them
// out (row_tickets.cuh: a cluster that shares its SMs with others takes fewer), or by a fixed share
// where one block fills an SM (rows::staged_rows_by_counter); each block's slice
// of a row (<= 64 KB) is copied into shared memory by cp.async one row ahead, so DRAM keeps reading
// through the reductions and cluster exchanges of the row before. The row's statistics come from
// the slices: fp32 rows take each block's mean and then its squared deviations (row_mean_rstd, two
// block reductions and Chan's merge), bf16/fp16 rows the sums of x and x^2 in one pass, one block
// reduction and one round where the guard allows (row_mean_rstd_one_pass). x is read from DRAM
// once, w's slice is copied into shared memory once per block and b's packs into each thread's
// registers once (b read from L2 every row cost 9-14%: docs/notes/memory-bound-round3.md).
// rmsnorm_rows' staged layout, with LayerNorm's two statistics.
#include "kernels/rows/layernorm_rows/staged_rows.hpp"

#include <algorithm>

#include "harness/cuda_check.hpp"
#include "kernels/primitives/cluster_occupancy.hpp"
#include "kernels/primitives/cp_async.cuh"
#include "kernels/primitives/row_tickets.cuh"
#include "kernels/primitives/smem_opt_in.hpp"
#include "kernels/rows/row_reducers.cuh"

namespace nb::layernorm_rows {
namespace {

using rows::ClusterReducer;
using rows::PartRange;
using rows::RowGeometry;
using rows::RowPlan;

// Every thread copies, reads and writes the same packs of a slice, p = threadIdx.x + k * blockDim.x,
// so its own cp.async wait makes them visible to it and no block barrier guards the slices.
__device__ __forceinline__ void copy_slice(uint4* dst, const void* src, int count) {
  const uint4* s = static_cast<const uint4*>(src);
#pragma unroll 4
  for (int p = threadIdx.x; p < count; p += blockDim.x) dev::cp_async_16(dst + p, s + p);
}

template <class T, bool kByCounter>
__global__ void __launch_bounds__(rows::kMaxStagedLanes)
    layernorm_rows_staged(RowTensors<T> t, RowGeometry g, unsigned long long* next_row) {
  constexpr int VEC = dev::kPack16<T>;
  // x of one row, x of the next, w: packs_per_part packs each. Aligned past the statics (368 bytes of
  // them put the slices 16 bytes into a 32-byte sector: 1024 x 262144 bf16 took 0.3051-0.3099 ms
  // on an H200, aligned 0.2833-0.2841).
  extern __shared__ __align__(128) uint4 slices[];
  __shared__ float scratch[32];
  __shared__ rows::RowExchange exchange;
  __shared__ dev::ClusterBroadcast row_after_next;
  ClusterReducer reduce(scratch, exchange, g.parts);
  row_after_next.enter();
  const PartRange part = rows::part_range(g);
  const int count = part.count();
  const long long offset = part.first * VEC;  // my block's first element in a row
  uint4* const w_slice = slices + 2 * g.packs_per_part;
  dev::RowTickets tickets(blockIdx.x / g.parts, gridDim.x / g.parts);
  const bool draws = threadIdx.x == 0 && blockIdx.x % g.parts == 0;  // rank 0's thread 0 (kByCounter)

  uint4 b_packs[rows::kStagedPacksPerThread];  // this thread's packs of b, for every row
#pragma unroll
  for (int k = 0; k < rows::kStagedPacksPerThread; ++k) {
    const int p = threadIdx.x + k * blockDim.x;
    if (p < count) b_packs[k] = __ldg(reinterpret_cast<const uint4*>(t.b + offset) + p);
  }
  copy_slice(w_slice, t.w + offset, count);
  if (tickets.row < g.rows) copy_slice(slices, t.x + tickets.row * g.n + offset, count);
  dev::cp_async_commit();
  for (unsigned round = 0; tickets.row < g.rows; ++round) {
    const long long row = tickets.row;
    const int buffer = round & 1;
    if (tickets.next < g.rows)
      copy_slice(slices + (buffer ^ 1) * g.packs_per_part, t.x + tickets.next * g.n + offset, count);
    dev::cp_async_commit();   // (empty past the last row: every thread commits the same groups)
    dev::cp_async_wait<1>();  // everything but the next row has landed: w and this row
    // The row after next: drawn (its latency runs under the first pass), or the share's.
    const long long after = kByCounter ? (draws ? tickets.draw(next_row) : 0) : tickets.after_next_by_share();
    const uint4* x_slice = slices + buffer * g.packs_per_part;

    const auto each_pack = [&](auto f) {
#pragma unroll 4
      for (int p = threadIdx.x; p < count; p += blockDim.x) f(dev::widen16<T>(x_slice[p]));
    };
    const auto each_centered = [&](float mean, auto f) {
#pragma unroll 4
      for (int p = threadIdx.x; p < count; p += blockDim.x) f(centered(dev::widen16<T>(x_slice[p]), mean));
    };
    MeanRstd st;
    if constexpr (sizeof(T) == 2) {  // one pass and one block reduction, one round (row_mean_rstd_one_pass)
      const auto each_pack_mine = [&](auto f) { each_pack([&](const dev::FloatPack<VEC>& v) { f(v, true); }); };
      st = row_mean_rstd_one_pass<VEC>(each_pack_mine, each_centered, reduce, 0.0f, float(g.n), g.inv_n, g.eps);
    } else {
      st = row_mean_rstd<VEC>(each_pack, each_centered, reduce, float(count * VEC), g.inv_n, g.eps);
    }
    const float mean = st.mean, rstd = st.rstd;
    if (kByCounter) row_after_next.send(after, round, g.parts);

    T* yr = t.y + row * g.n + offset;
#pragma unroll
    for (int k = 0; k < rows::kStagedPacksPerThread; ++k) {
      const int p = threadIdx.x + k * blockDim.x;
      if (p < count)
        dev::store_from_float<T, VEC>(yr + p * VEC,
                                      normalized<T>(dev::widen16<T>(x_slice[p]), dev::widen16<T>(w_slice[p]),
                                                    dev::widen16<T>(b_packs[k]), mean, rstd));
    }
    if (threadIdx.x == 0 && blockIdx.x % g.parts == 0) {
      t.mean[row] = mean;
      t.rstd[row] = rstd;
    }
    tickets.advance(kByCounter ? row_after_next.receive(round) : after);
  }
  row_after_next.leave();
  reduce.finish();
}

}  // namespace

template <class T>
int resident_staged_clusters(const RowPlan& plan) {
  try {
    allow_dynamic_smem<layernorm_rows_staged<T, true>, int(rows::kStagedSlices * rows::kMaxStagedSliceBytes)>();
    allow_dynamic_smem<layernorm_rows_staged<T, false>, int(rows::kStagedSlices * rows::kMaxStagedSliceBytes)>();
  } catch (const DeviceError&) {
    return 0;  // the caller keeps the row in registers instead
  }
  cudaLaunchAttribute cluster;
  const cudaLaunchConfig_t config = rows::cluster_config(
      plan, 1, static_cast<std::size_t>(plan.staged_smem_bytes()), nullptr, &cluster);
  const auto kernel =
      rows::staged_rows_by_counter(plan) ? layernorm_rows_staged<T, true> : layernorm_rows_staged<T, false>;
  return resident_clusters(reinterpret_cast<const void*>(kernel), config);  // the instance launch_staged_rows runs
}

template <class T>
void launch_staged_rows(const RowPlan& plan, const RowGeometry& g, const RowTensors<T>& t, unsigned long long* next_row,
                        cudaStream_t stream) {
  const long long clusters = std::min<long long>(g.rows, resident_staged_clusters<T>(plan));
  const auto smem = static_cast<std::size_t>(plan.staged_smem_bytes());
  if (!rows::staged_rows_by_counter(plan))
    return rows::launch_clusters(layernorm_rows_staged<T, false>, plan, clusters, smem, stream, t, g, next_row);
  NB_CUDA_CHECK(cudaMemsetAsync(next_row, 0, sizeof(*next_row), stream));
  rows::launch_clusters(layernorm_rows_staged<T, true>, plan, clusters, smem, stream, t, g, next_row);
}

#define NB_LAYERNORM_STAGED_ROWS_FOR(T)                                                                      \
  template int resident_staged_clusters<T>(const RowPlan&);                                                  \
  template void launch_staged_rows<T>(const RowPlan&, const RowGeometry&, const RowTensors<T>&,          \
                                      unsigned long long*, cudaStream_t);
NB_LAYERNORM_STAGED_ROWS_FOR(float)
NB_LAYERNORM_STAGED_ROWS_FOR(__nv_bfloat16)
NB_LAYERNORM_STAGED_ROWS_FOR(__half)
#undef NB_LAYERNORM_STAGED_ROWS_FOR

}  // namespace nb::layernorm_rows
