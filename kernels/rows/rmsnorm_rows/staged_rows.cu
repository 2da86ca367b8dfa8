// Staged rows: a persistent grid of clusters (up to 8 blocks) takes rows as a counter hands them
// out (row_tickets.cuh: a cluster that shares its SMs with others takes fewer), or by a fixed share
// where one block fills an SM (rows::staged_rows_by_counter); each block's slice
// of a row (<= 64 KB) is copied into shared memory by cp.async one row ahead, so DRAM keeps reading
// through the reductions and cluster exchanges of the row before. x is read from DRAM once (its
// slice stays in shared memory until y is written), w's slice is copied once.
#include "kernels/rows/rmsnorm_rows/staged_rows.hpp"

#include <algorithm>

#include "harness/cuda_check.hpp"
#include "harness/errors.hpp"
#include "kernels/primitives/cluster_occupancy.hpp"
#include "kernels/primitives/cp_async.cuh"
#include "kernels/primitives/row_tickets.cuh"
#include "kernels/primitives/smem_opt_in.hpp"
#include "kernels/primitives/storage.cuh"
#include "kernels/rows/row_reducers.cuh"

namespace nb::rmsnorm_rows {

using rows::cluster_config;
using rows::ClusterReducer;
using rows::kMaxLanes;
using rows::kMaxStagedSliceBytes;
using rows::kStagedSlices;
using rows::launch_clusters;
using rows::part_range;
using rows::PartRange;
using rows::row_inv_rms;
using rows::RowGeometry;
using rows::RowPlan;

namespace {

// Every thread copies, reads and writes the same packs of a slice, p = threadIdx.x + k * blockDim.x,
// so its own cp.async wait makes them visible to it and no block barrier guards the slices.
__device__ __forceinline__ void copy_slice(uint4* dst, const void* src, int count) {
  const uint4* s = static_cast<const uint4*>(src);
#pragma unroll 4
  for (int p = threadIdx.x; p < count; p += blockDim.x) dev::cp_async_16(dst + p, s + p);
}

template <class T, bool kByCounter>
__global__ void __launch_bounds__(kMaxLanes) rmsnorm_rows_staged(const T* __restrict__ x, const T* __restrict__ w,
                                                                 T* __restrict__ y, RowGeometry g,
                                                                 unsigned long long* next_row) {
  constexpr int VEC = dev::kPack16<T>;
  // x of one row, x of the next, w: packs_per_part packs each. Aligned past the statics (368 bytes of
  // them put the slices 16 bytes into a 32-byte sector: 1024 x 262144 bf16 took 0.3398-0.3404 ms on
  // an H200, aligned 0.3040-0.3046).
  extern __shared__ __align__(128) uint4 slices[];
  __shared__ float scratch[32];
  __shared__ rows::RowExchange exchange;
  __shared__ dev::ClusterBroadcast row_after_next;
  ClusterReducer reduce(scratch, exchange, g.parts);
  row_after_next.enter();
  const PartRange part = part_range(g);
  const int count = part.count();
  const long long offset = part.first * VEC;  // my block's first element in a row
  uint4* const w_slice = slices + 2 * g.packs_per_part;
  dev::RowTickets tickets(blockIdx.x / g.parts, gridDim.x / g.parts);
  const bool draws = threadIdx.x == 0 && blockIdx.x % g.parts == 0;  // rank 0's thread 0 (kByCounter)

  copy_slice(w_slice, w + offset, count);
  if (tickets.row < g.rows) copy_slice(slices, x + tickets.row * g.n + offset, count);
  dev::cp_async_commit();
  for (unsigned round = 0; tickets.row < g.rows; ++round) {
    const long long row = tickets.row;
    const int buffer = round & 1;
    if (tickets.next < g.rows)
      copy_slice(slices + (buffer ^ 1) * g.packs_per_part, x + tickets.next * g.n + offset, count);
    dev::cp_async_commit();   // (empty past the last row: every thread commits the same groups)
    dev::cp_async_wait<1>();  // everything but the next row has landed: w and this row
    // The row after next: drawn (its latency runs under the first pass), or the share's.
    const long long after = kByCounter ? (draws ? tickets.draw(next_row) : 0) : tickets.after_next_by_share();
    const uint4* x_slice = slices + buffer * g.packs_per_part;
    const auto each_pack = [&](auto f) {
#pragma unroll 4
      for (int p = threadIdx.x; p < count; p += blockDim.x) f(dev::widen16<T>(x_slice[p]));
    };
    const float inv = row_inv_rms<VEC>(each_pack, reduce, g.inv_n, g.eps);
    if (kByCounter) row_after_next.send(after, round, g.parts);
    T* yr = y + row * g.n + offset;
#pragma unroll 4
    for (int p = threadIdx.x; p < count; p += blockDim.x) {
      const dev::FloatPack<VEC> v = dev::widen16<T>(x_slice[p]), wp = dev::widen16<T>(w_slice[p]);
      dev::FloatPack<VEC> out;
#pragma unroll
      for (int i = 0; i < VEC; ++i) out.v[i] = v.v[i] * inv * wp.v[i];
      dev::store_from_float<T, VEC>(yr + p * VEC, out);
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
    allow_dynamic_smem<rmsnorm_rows_staged<T, true>, int(kStagedSlices * kMaxStagedSliceBytes)>();
    allow_dynamic_smem<rmsnorm_rows_staged<T, false>, int(kStagedSlices * kMaxStagedSliceBytes)>();
  } catch (const DeviceError&) {
    return 0;  // the caller keeps the row in registers instead
  }
  cudaLaunchAttribute cluster;
  const cudaLaunchConfig_t config =
      cluster_config(plan, 1, static_cast<std::size_t>(plan.staged_smem_bytes()), nullptr, &cluster);
  const auto kernel = rows::staged_rows_by_counter(plan) ? rmsnorm_rows_staged<T, true> : rmsnorm_rows_staged<T, false>;
  return resident_clusters(reinterpret_cast<const void*>(kernel), config);  // the instance launch_staged_rows runs
}

template <class T>
void launch_staged_rows(const RowPlan& plan, const RowGeometry& g, const T* x, const T* w, T* y,
                        unsigned long long* next_row, cudaStream_t stream) {
  const long long clusters = std::min<long long>(g.rows, resident_staged_clusters<T>(plan));
  const auto smem = static_cast<std::size_t>(plan.staged_smem_bytes());
  if (!rows::staged_rows_by_counter(plan))
    return launch_clusters(rmsnorm_rows_staged<T, false>, plan, clusters, smem, stream, x, w, y, g, next_row);
  NB_CUDA_CHECK(cudaMemsetAsync(next_row, 0, sizeof(*next_row), stream));
  launch_clusters(rmsnorm_rows_staged<T, true>, plan, clusters, smem, stream, x, w, y, g, next_row);
}

#define NB_STAGED_ROWS_FOR(T)                                                                                     \
  template int resident_staged_clusters<T>(const RowPlan&);                                                       \
  template void launch_staged_rows<T>(const RowPlan&, const RowGeometry&, const T*, const T*, T*,                \
                                      unsigned long long*, cudaStream_t);
NB_STAGED_ROWS_FOR(float)
NB_STAGED_ROWS_FOR(__nv_bfloat16)
NB_STAGED_ROWS_FOR(__half)
#undef NB_STAGED_ROWS_FOR

}  // namespace nb::rmsnorm_rows
