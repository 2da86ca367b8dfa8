// Overlapped rows: staged_rows.cu's slices for 2-byte rows, each row's sums crossing the cluster
// while the block sums the next row. One block an SM holds a ring of kSlots slices of x (rows by
// the cluster's fixed share, copied by cp.async kSlots - 2 rows ahead) and w's slice; at row i it
// sums row i + 1, each warp posting its own sums to every block (four exchange buffers, so one
// round may wait uncollected; no block reduction before the post), then collects row i's totals,
// which have had a whole pass to arrive, and writes row i. In staged_rows.cu a block waited on its
// peers' sums every row (a quarter of its warps' stall samples at 4096 x 65536 bf16:
// docs/notes/memory-bound-round3.md). Rows the one-pass guard
// refuses take its second pass on an exchange of their own, received as sent, so its rounds never
// reach a posted round's buffer. Slices past 32 KB (2-byte rows past 131072) stay in staged_rows.cu.
#include "kernels/rows/layernorm_rows/overlapped_rows.hpp"

#include <algorithm>

#include "harness/cuda_check.hpp"
#include "kernels/primitives/cluster_occupancy.hpp"
#include "kernels/primitives/cp_async.cuh"
#include "kernels/primitives/host_math.hpp"
#include "kernels/primitives/smem_opt_in.hpp"
#include "kernels/primitives/storage.cuh"
#include "kernels/rows/row_reducers.cuh"
#include "kernels/rows/warp_sum_posts.cuh"

namespace nb::layernorm_rows {
namespace {

using rows::PartRange;
using rows::RowGeometry;
using rows::RowPlan;

constexpr int kPacksPerThread = 4;  // 16-byte packs of each slice a thread copies, sums and writes
constexpr int kMaxLanes = 512;      // a 32 KB slice
// Slices of x in the ring: row i summed and written, row i + 1 summed, two more rows in flight (32-64
// KB an SM). Measured on an H200 (4096 x 65536 and 2048 x 131072 bf16, median ms, the kernel's first
// form): 3 slots 0.2913 and 0.2947, 4 slots 0.2845 and 0.2887, 6 slots 0.2889 and 0.2928.
constexpr int kSlots = 4;
constexpr std::int64_t kMaxSliceBytes = std::int64_t{kMaxLanes} * kPacksPerThread * rows::kPackBytes;
using SumPosts = rows::WarpSumPosts<kMaxLanes / 32>;  // every warp posts its own sums

// Each thread copies, reads and writes its own packs of every slice, p = threadIdx.x + k *
// blockDim.x (k < kPacksPerThread, p < count): its own cp.async wait makes them visible to it, and
// no block barrier guards a slice.
template <class T>
__global__ void __launch_bounds__(kMaxLanes, 1) layernorm_rows_overlapped(RowTensors<T> t, RowGeometry g) {
  constexpr int VEC = dev::kPack16<T>;
  // kSlots slices of x (row i in slot i % kSlots), then w's. Aligned past the statics: begun 16 bytes
  // into a 32-byte sector (624 bytes of them), the same kernel took 6% longer (H200, 4096 x 65536).
  extern __shared__ __align__(128) uint4 slices[];
  __shared__ float scratch[32];
  __shared__ SumPosts::Exchange ahead;    // every warp's sums of the rows, round i = row i
  __shared__ rows::RowExchange exchange;  // the guard's second pass, received as sent
  SumPosts posts(ahead, g.parts);
  rows::ClusterReducer reduce(scratch, exchange, g.parts);
  const PartRange part = rows::part_range(g);
  const int count = part.count();
  const long long offset = part.first * VEC;  // my block's first element in a row
  const long long cluster = blockIdx.x / g.parts, clusters = gridDim.x / g.parts;
  const auto row_of = [&](int i) { return cluster + i * clusters; };  // the cluster's i-th row
  const auto slot = [&](int i) { return slices + (i % kSlots) * g.packs_per_part; };
  uint4* const w_slice = slices + kSlots * g.packs_per_part;
  const auto each_mine = [&](auto f) {
#pragma unroll
    for (int k = 0; k < kPacksPerThread; ++k) {
      const int p = threadIdx.x + k * blockDim.x;
      if (p < count) f(k, p);
    }
  };
  const auto copy_row = [&](int i) {  // row i's slice into its slot, if the row exists
    if (row_of(i) >= g.rows) return;
    const uint4* src = reinterpret_cast<const uint4*>(t.x + row_of(i) * g.n + offset);
    uint4* dst = slot(i);
    each_mine([&](int, int p) { dev::cp_async_16(dst + p, src + p); });
  };

  uint4 b_packs[kPacksPerThread];  // this thread's packs of b, for every row
  each_mine([&](int k, int p) { b_packs[k] = __ldg(reinterpret_cast<const uint4*>(t.b + offset) + p); });
  each_mine([&](int, int p) { dev::cp_async_16(w_slice + p, reinterpret_cast<const uint4*>(t.w + offset) + p); });
#pragma unroll
  for (int i = 0; i < kSlots - 1; ++i) {  // rows 0 .. kSlots - 2, w with row 0: a group each
    copy_row(i);
    dev::cp_async_commit();
  }
  const auto sums_of = [&](int i) {  // this thread's one-pass sums of row i (row_math.cuh)
    const uint4* xs = slot(i);
    return one_pass_sums<VEC>(
        [&](auto f) { each_mine([&](int, int p) { f(dev::widen16<T>(xs[p]), true); }); }, 0.0f);
  };

  unsigned posted = 0;  // the round of row i's sums
  if (row_of(0) < g.rows) {
    dev::cp_async_wait<kSlots - 2>();  // w and row 0 have landed
    posted = posts.post_sum2(sums_of(0));
  }
  for (int i = 0; row_of(i) < g.rows; ++i) {
    copy_row(i + kSlots - 1);  // into row i - 1's slot, which this thread has finished with
    dev::cp_async_commit();    // (empty past the last row: every thread commits the same groups)
    dev::cp_async_wait<kSlots - 2>();  // row i + 1 has landed
    const unsigned next_posted = row_of(i + 1) < g.rows ? posts.post_sum2(sums_of(i + 1)) : 0;

    const uint4* xs = slot(i);
    const auto each_centered = [&](float mean, auto f) {
      each_mine([&](int, int p) { f(centered(dev::widen16<T>(xs[p]), mean)); });
    };
    const MeanRstd st = mean_rstd_of_sums<VEC>(posts.collect_sum2(posted), each_centered, reduce, 0.0f,
                                               float(g.n), g.inv_n, g.eps);
    T* yr = t.y + row_of(i) * g.n + offset;
    each_mine([&](int k, int p) {
      dev::store_from_float<T, VEC>(yr + p * VEC, normalized<T>(dev::widen16<T>(xs[p]), dev::widen16<T>(w_slice[p]),
                                                                dev::widen16<T>(b_packs[k]), st.mean, st.rstd));
    });
    if (threadIdx.x == 0 && blockIdx.x % g.parts == 0) {
      t.mean[row_of(i)] = st.mean;
      t.rstd[row_of(i)] = st.rstd;
    }
    posted = next_posted;
  }
  posts.finish();
  reduce.finish();
}

std::size_t smem_bytes(const RowPlan& plan) {
  return static_cast<std::size_t>((kSlots + 1) * plan.packs_per_part * plan.pack_bytes());
}

// The staged plan as this kernel launches it: kPacksPerThread packs a lane.
RowPlan launched_plan(const RowPlan& plan) {
  RowPlan launched = plan;
  launched.lanes = static_cast<int>(ceil_div(ceil_div(plan.packs_per_part, kPacksPerThread), 32) * 32);
  return launched;
}

}  // namespace

template <class T>
int resident_overlapped_clusters(const RowPlan& plan) {
  if constexpr (sizeof(T) != 2) {
    return 0;
  } else {
    constexpr auto kernel = layernorm_rows_overlapped<T>;
    if (plan.parts < 2 || plan.packs_per_part * plan.pack_bytes() > kMaxSliceBytes) return 0;
    if (!dynamic_smem_allowed<kernel, int((kSlots + 1) * kMaxSliceBytes)>()) return 0;
    cudaLaunchAttribute cluster;
    const cudaLaunchConfig_t config = rows::cluster_config(launched_plan(plan), 1, smem_bytes(plan), nullptr, &cluster);
    return resident_clusters(reinterpret_cast<const void*>(kernel), config);
  }
}

template <class T>
bool launch_overlapped_rows(const RowPlan& plan, const RowGeometry& g, const RowTensors<T>& t, cudaStream_t stream) {
  const int resident = resident_overlapped_clusters<T>(plan);
  if (resident < 1) return false;
  if constexpr (sizeof(T) == 2)
    rows::launch_clusters(layernorm_rows_overlapped<T>, launched_plan(plan), std::min<long long>(g.rows, resident),
                          smem_bytes(plan), stream, t, g);
  return true;
}

#define NB_LAYERNORM_OVERLAPPED_ROWS_FOR(T)                             \
  template int resident_overlapped_clusters<T>(const RowPlan&);         \
  template bool launch_overlapped_rows<T>(const RowPlan&, const RowGeometry&, const RowTensors<T>&, cudaStream_t);
NB_LAYERNORM_OVERLAPPED_ROWS_FOR(float)
NB_LAYERNORM_OVERLAPPED_ROWS_FOR(__nv_bfloat16)
NB_LAYERNORM_OVERLAPPED_ROWS_FOR(__half)
#undef NB_LAYERNORM_OVERLAPPED_ROWS_FOR

}  // namespace nb::layernorm_rows
