// Onchip: a row lives in shared memory, so x is read from DRAM exactly once. A thread-block
// cluster sized to N (1..8 CTAs of <= 192 KB) splits the row; each CTA reduces its slice and pushes
// (max, sum) into every CTA of the cluster (a ClusterExchange: st.async onto each CTA's own
// mbarrier, no cluster barrier a row), and each merges them in rank order.
// The grid is persistent, its rows handed out as the clusters ask (row_tickets.cuh: rank 0 draws
// the row after next and pushes it with its (max, sum)), so a cluster that shares its SMs with
// others and runs slower takes fewer rows, and the grid finishes together (at 2048 x 131072 bf16,
// 62 clusters of 4 CTAs, the SMs' mean active cycles were 75% of the busiest SM's with a fixed
// share of rows each and 93% with the counter: 16% less time). The slice stays in the storage
// type: fp32 slices hold exp(x - max) in place (one exp per value), bf16/fp16 take half the shared
// memory and compute exp again for the write.
#include <cooperative_groups.h>

#include <algorithm>
#include <string>
#include <type_traits>

#include "harness/cuda_check.hpp"
#include "kernels/primitives/cluster_exchange.cuh"
#include "kernels/primitives/cluster_launch.hpp"
#include "kernels/primitives/cluster_occupancy.hpp"
#include "kernels/primitives/row_tickets.cuh"
#include "kernels/softmax/common.cuh"
#include "kernels/softmax/onchip.hpp"
#include "harness/variant.hpp"

namespace nb::softmax {
namespace {

namespace cg = cooperative_groups;

// Each CTA fetches its whole next slice into registers ahead of time, so the kernel comes in one
// configuration per slice size (plan_onchip's SliceClass, in bytes), chosen to keep several rows in
// flight per SM; "packs" are 16 bytes (4 fp32, 8 bf16 or fp16):
//   <= 16 KB: 256 threads x 4 packs, 48 registers, 5 CTAs per SM;
//   <= 32 KB: 256 threads x 8 packs, 64 registers, 4 CTAs per SM;
//   <= 64 KB: 512 threads x 8 packs, 64 registers, 2 CTAs per SM;
//   <= 96 KB: 256 threads x 24 packs, 128 registers, 2 CTAs per SM (512 x 12 would not fit twice);
//   <= 192 KB: 512 threads x 24 packs, 128 registers, 1 CTA per SM (rows over 8 x 96 KB).
// Clusters stop at 8 CTAs: 16 CTAs of 96 KB at 2 per SM need 8 SMs of one GPC, and only 14 such
// clusters fit on a 132-SM H100 (20 SMs idle, 4.57 ms at 4096 x 393216 fp32); 8 CTAs of 192 KB fit
// 15 times (120 SMs, 4.52 ms). Narrower packs (odd N) fetch as many packs, of fewer bytes.

// fp32 slices keep exp(x - local max) in place; narrow ones keep x.
template <class T>
constexpr bool kExpInPlace = std::is_same_v<T, float>;

// The bits of one pack of VEC elements (16 bytes at most), as they sit in global memory, in the
// shared slice and in the registers fetched ahead: held as raw words, so a pack of 8 bf16 takes 4
// registers, and converted to floats only where the math needs them.
template <class T, int VEC>
using Word = dev::PackWord<T, VEC>;

template <int VEC>
__device__ __forceinline__ Word<float, VEC> pack_floats(const dev::FloatPack<VEC>& f) {
  Word<float, VEC> w;
  *reinterpret_cast<dev::FloatPack<VEC>*>(&w) = f;
  return w;
}

template <class T, int VEC>
__device__ __forceinline__ float pack_max(float acc, const Word<T, VEC>& w) {
  const dev::FloatPack<VEC> f = dev::widen<T, VEC>(w);
#pragma unroll
  for (int k = 0; k < VEC; ++k) acc = fmaxf(acc, f.v[k]);
  return acc;
}

// The first K packs per thread of a slice (pack threadIdx.x + p * blockDim.x) in registers: a
// persistent CTA issues them for its next row while it waits for its peers' (max, sum) and writes
// the current one, so DRAM keeps reading through what would otherwise be idle time.
template <class T, int VEC, int K>
struct SliceAhead {
  Word<T, VEC> q[K];

  __device__ __forceinline__ void fetch(const T* src, int n) {
    const Word<T, VEC>* s = reinterpret_cast<const Word<T, VEC>*>(src);
    const int packs = n / VEC;
#pragma unroll
    for (int p = 0; p < K; ++p) {
      const int i = threadIdx.x + p * blockDim.x;
      if (i < packs) q[p] = __ldg(s + i);
    }
  }
};

// Copies src[0, n) into the shared slice as stored and returns this thread's max over what it
// copied; its first packs come from `ahead`, as SliceAhead::fetch(src, n) left them.
template <class T, int VEC, int K>
__device__ __forceinline__ float stage_slice(const T* src, T* smem, int n, const SliceAhead<T, VEC, K>& ahead) {
  const Word<T, VEC>* s = reinterpret_cast<const Word<T, VEC>*>(src);
  Word<T, VEC>* slice = reinterpret_cast<Word<T, VEC>*>(smem);
  const int packs = n / VEC;
  float mx = -FLT_MAX;
  int i = threadIdx.x;
#pragma unroll
  for (int p = 0; p < K; ++p, i += blockDim.x)
    if (i < packs) slice[i] = ahead.q[p], mx = pack_max<T, VEC>(mx, ahead.q[p]);
#pragma unroll 4
  for (; i < packs; i += blockDim.x) {
    const Word<T, VEC> q = __ldg(s + i);
    slice[i] = q;
    mx = pack_max<T, VEC>(mx, q);
  }
  return mx;
}

// This thread's sum of exp(v - mx) over the slice; an fp32 slice keeps exp(v - mx) in place, so
// its write needs one multiply per value.
template <class T, int VEC>
__device__ float slice_exp_sum(T* smem, int n, float mx) {
  Word<T, VEC>* slice = reinterpret_cast<Word<T, VEC>*>(smem);
  float s = 0.f;
  for (int i = threadIdx.x; i < n / VEC; i += blockDim.x) {
    dev::FloatPack<VEC> f = dev::widen<T, VEC>(slice[i]);
#pragma unroll
    for (int k = 0; k < VEC; ++k) s += (f.v[k] = exp_shifted<T>(f.v[k], mx));
    if constexpr (kExpInPlace<T>) slice[i] = pack_floats<VEC>(f);
  }
  return s;
}

// dst = exp(v - mx) * scale over the slice (an fp32 slice holds exp(v - mx) already).
template <class T, int VEC>
__device__ void write_slice(const T* smem, T* dst, int n, float mx, float scale) {
  const Word<T, VEC>* slice = reinterpret_cast<const Word<T, VEC>*>(smem);
  for (int i = threadIdx.x; i < n / VEC; i += blockDim.x) {
    dev::FloatPack<VEC> f = dev::widen<T, VEC>(slice[i]);
#pragma unroll
    for (int k = 0; k < VEC; ++k) f.v[k] = (kExpInPlace<T> ? f.v[k] : exp_shifted<T>(f.v[k], mx)) * scale;
    dev::store_from_float<T, VEC>(dst + i * VEC, f);
  }
}

// A CTA's (max, sum) of its slice and, from rank 0, the cluster's row after next: what the
// exchange carries a row (16 bytes, one st.async).
struct RowTotals {
  MaxSum slice;
  long long after;  // 0 but in rank 0's, a row index: the ranks' maximum is rank 0's

  __device__ void merge(const RowTotals& o) {
    slice.merge(o.slice);
    after = after > o.after ? after : o.after;
  }
};

__device__ inline RowTotals shfl_xor(const RowTotals& v, int offset) {
  return {shfl_xor(v.slice, offset), __shfl_xor_sync(dev::kFullMask, v.after, offset)};
}

// Persistent: the grid holds as many clusters as can be resident, and takes its rows from
// RowTickets over `next_row` (zero at launch); the next row's first kAhead packs per thread are
// fetched into registers while the CTA waits for its peers' totals and writes the current row. Every
// thread reads and writes only its own packs of the slice (pack threadIdx.x + p * blockDim.x), so
// no barrier guards the slice from one row to the next; the block reductions' barriers are the
// ones the exchange needs between rounds. `slice` is a
// multiple of VEC, so every CTA's part of a row is whole packs. Indices within a slice are int:
// 64-bit ones cost the registers that made the 24-pack configurations spill.
template <class T, int VEC, int kMaxThreads, int kMinBlocks, int kAhead>
__global__ void __launch_bounds__(kMaxThreads, kMinBlocks)
    onchip_kernel(Args<T> a, long long slice, unsigned long long* next_row) {
  extern __shared__ float4 slice_smem[];
  T* smem = reinterpret_cast<T*>(slice_smem);
  __shared__ float scratch[32];
  __shared__ dev::ClusterExchange<4, 1, kMaxCluster> exchange;  // RowTotals: four words
  __shared__ long long drawn;                                   // rank 0's row after next
  const cg::cluster_group cluster = cg::this_cluster();
  const int ranks = int(cluster.num_blocks());
  const bool draws = cluster.block_rank() == 0;
  const long long clusters = gridDim.x / ranks;
  const long long b = cluster.block_rank() * slice;
  const int n = int(b + slice < a.n ? slice : (a.n > b ? a.n - b : 0));  // this CTA's part: <= 98304
  dev::RowTickets tickets(blockIdx.x / ranks, clusters);
  SliceAhead<T, VEC, kAhead> ahead;
  exchange.enter(ranks);
  ahead.fetch(a.x + tickets.row * a.n + b, n);
  for (unsigned round = 0; tickets.row < a.m; ++round) {
    const long long row = tickets.row;
    const float mx = dev::block_max(stage_slice(a.x + row * a.n + b, smem, n, ahead), scratch);
    if (draws && threadIdx.x == 0) drawn = tickets.draw(next_row);
    const float sum = dev::block_sum(slice_exp_sum<T, VEC>(smem, n, mx), scratch);  // and `drawn` is seen
    RowTotals total{MaxSum{mx, sum}, draws ? drawn : 0};
    if (ranks > 1) exchange.send(total, round, ranks);
    if (tickets.next < a.m) ahead.fetch(a.x + tickets.next * a.n + b, n);
    if (ranks > 1)
      total = exchange.receive_by_lanes<RowTotals>(round, ranks, [](RowTotals& t, const RowTotals& o) { t.merge(o); });
    write_slice<T, VEC>(smem, a.y + row * a.n + b, n, mx, expf(mx - total.slice.m) / total.slice.s);
    tickets.advance(total.after);  // rank 0's
  }
  exchange.leave(ranks);
}

template <class T, int VEC>
using KernelFn = void (*)(Args<T>, long long, unsigned long long*);

template <class T, int VEC>
KernelFn<T, VEC> kernel_for(SliceClass kind) {
  switch (kind) {
    case SliceClass::upto16k: return onchip_kernel<T, VEC, 256, 5, 4>;
    case SliceClass::upto32k: return onchip_kernel<T, VEC, 256, 4, 8>;
    case SliceClass::upto64k: return onchip_kernel<T, VEC, 512, 2, 8>;
    case SliceClass::upto96k: return onchip_kernel<T, VEC, 256, 2, 24>;
    case SliceClass::upto192k: return onchip_kernel<T, VEC, 512, 1, 24>;
  }
  return nullptr;
}

// Once per process and instantiation: opt in to 192 KB of dynamic shared memory.
template <class T, int VEC>
void configure_once() {
  static const bool done = [] {
    for (SliceClass kind :
         {SliceClass::upto16k, SliceClass::upto32k, SliceClass::upto64k, SliceClass::upto96k, SliceClass::upto192k}) {
      NB_CUDA_CHECK(cudaFuncSetAttribute(kernel_for<T, VEC>(kind), cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         int(kSliceCapBytes)));
    }
    return true;
  }();
  (void)done;
}

template <class T>
cudaLaunchConfig_t config_for(const OnchipPlan& cp, long long rows, cudaStream_t stream, cudaLaunchAttribute* attr) {
  return cluster_launch_config(dim3(unsigned(cp.cluster * rows)), dim3(cp.threads), std::size_t(cp.slice) * sizeof(T),
                               stream, unsigned(cp.cluster), true, *attr);
}

// Clusters of this plan and kernel that fit on the device at once (0: none), asked of the driver
// once per plan (nb::resident_clusters remembers): launch() runs inside the timed region.
template <class T, int VEC>
int resident_clusters(const OnchipPlan& cp) {
  configure_once<T, VEC>();
  cudaLaunchAttribute attr;
  const cudaLaunchConfig_t cfg = config_for<T>(cp, 1, nullptr, &attr);
  return nb::resident_clusters(reinterpret_cast<const void*>(kernel_for<T, VEC>(cp.kind)), cfg);
}

template <class T, int VEC>
void launch_clusters(const Args<T>& a, const OnchipPlan& cp, unsigned long long* next_row, cudaStream_t stream) {
  const int resident = resident_clusters<T, VEC>(cp);
  if (resident < 1) throw Unsupported("onchip: no cluster of " + std::to_string(cp.cluster) + " CTAs fits");
  const long long clusters = std::min<long long>(a.m, resident);
  cudaLaunchAttribute attr;
  const cudaLaunchConfig_t cfg = config_for<T>(cp, clusters, stream, &attr);
  NB_CUDA_CHECK(cudaMemsetAsync(next_row, 0, sizeof(*next_row), stream));
  NB_CUDA_CHECK(cudaLaunchKernelEx(&cfg, kernel_for<T, VEC>(cp.kind), a, (long long)cp.slice, next_row));
}

}  // namespace

void launch_onchip(const Problem& p, const DeviceTensors& t, void* workspace, cudaStream_t stream) {
  dispatch_storage(p.dtype, [&](auto tag) {
    using T = decltype(tag);
    const Args<T> a = make_args<T>(p, t);
    const OnchipPlan cp = plan_onchip(a.n, int(sizeof(T)));
    dispatch_pack<T>(pack_width(a), [&](auto vec) {
      launch_clusters<T, decltype(vec)::value>(a, cp, static_cast<unsigned long long*>(workspace), stream);
    });
  });
  NB_CHECK_LAUNCH();
}

int onchip_resident_clusters(const Problem& p) {
  const Shape s = shape_of(p);
  return dispatch_storage(p.dtype, [&](auto tag) {
    using T = decltype(tag);
    const OnchipPlan cp = plan_onchip(s.n, int(sizeof(T)));
    int clusters = 0;
    dispatch_pack<T>(row_pack_width(s.n, int(sizeof(T)), 0, 0),
                     [&](auto vec) { clusters = resident_clusters<T, decltype(vec)::value>(cp); });
    return clusters;
  });
}

std::size_t onchip_workspace_bytes(const Problem&) { return dev::kRowCounterBytes; }

// A cluster of this size with this much shared memory must be resident at least once (asked of
// the kernel that aligned buffers get: the pack width n allows).
Support onchip_supports(const Problem& p) {
  const Shape s = shape_of(p);
  const int bytes = int(dtype_size(storage_type(p.dtype)));
  const OnchipPlan cp = plan_onchip(s.n, bytes);
  if (!cp.fits)
    return Support::no("a row over 8 CTAs x 192 KB (n > " + std::to_string(kMaxCluster * kSliceCapBytes / bytes) +
                       " in " + dtype_name(p.dtype) + ") does not fit one cluster's shared memory");
  int clusters = 0;
  try {
    clusters = onchip_resident_clusters(p);
  } catch (const std::exception& e) {
    return Support::no(std::string("cannot query cluster occupancy: ") + e.what());
  }
  if (clusters < 1)
    return Support::no("a cluster of " + std::to_string(cp.cluster) + " CTAs x " +
                       std::to_string(cp.slice * bytes / 1024) + " KB cannot be resident on this GPU");
  return Support::yes();
}

std::unique_ptr<Variant> make_onchip_variant() {
  return make_kernel_variant({
      "onchip", "fused",
      "row in shared memory (x read once): a persistent grid of clusters of 1..8 CTAs sized to n, rows handed "
      "out by a counter, (max, sum) pushed into the peers (DSMEM), the next row prefetched into registers",
      launch_onchip, onchip_supports, onchip_workspace_bytes, {}});
}

}  // namespace nb::softmax
