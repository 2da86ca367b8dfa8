// Onchip: a row lives in shared memory, so x is read from DRAM exactly once. A thread-block
// cluster sized to N (1..8 CTAs of <= 192 KB) splits the row; each CTA reduces its slice, publishes
// (max, sum) in its shared memory, and after cluster.sync() merges all of them through DSMEM.
// The grid is persistent (resident clusters loop over rows), one exp per value.
#include <cooperative_groups.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "harness/cuda_check.hpp"
#include "kernels/common/slice_stage.cuh"
#include "kernels/softmax/common.cuh"
#include "kernels/softmax/variants.hpp"

namespace nb::softmax {
namespace {

namespace cg = cooperative_groups;

constexpr long long kSliceCap = 49152;     // floats per CTA: 192 KB, one CTA per SM
constexpr long long kHalfSliceCap = 24576;  // floats per CTA that still fit two CTAs per SM
constexpr int kMaxCluster = 8;              // portable

// Each CTA fetches its whole next slice into registers ahead of time, so the kernel comes in one
// configuration per slice size (floats per CTA), chosen to keep several rows in flight per SM:
//   <= 4096: 256 threads x 4 float4, 48 registers, 5 CTAs per SM;
//   <= 8192: 256 threads x 8 float4, 64 registers, 4 CTAs per SM;
//   <= 16384: 512 threads x 8 float4, 64 registers, 2 CTAs per SM;
//   <= 24576: 256 threads x 24 float4, 128 registers, 2 CTAs per SM (512 x 12 would not fit twice);
//   <= 49152: 512 threads x 24 float4, 128 registers, 1 CTA per SM (rows over 8 x 96 KB).
// Clusters stop at 8 CTAs: 16 CTAs of 96 KB at 2 per SM need 8 SMs of one GPC, and only 14 such
// clusters fit on a 132-SM H100 (20 SMs idle, 4.57 ms at 4096 x 393216); 8 CTAs of 192 KB fit
// 15 times (120 SMs, 4.52 ms).
enum class SliceClass { upto4k, upto8k, upto16k, upto24k, upto48k };

struct ClusterPlan {
  int cluster = 1;      // CTAs per row
  long long slice = 0;  // elements per CTA, a multiple of 4
  int threads = 64;
  SliceClass kind = SliceClass::upto4k;
  bool fits = false;
};

ClusterPlan plan_for(long long n) {
  ClusterPlan cp;
  while (cp.cluster < kMaxCluster && dev::ceil_div(n, cp.cluster) > kHalfSliceCap) cp.cluster *= 2;
  cp.slice = dev::ceil_div(dev::ceil_div(n, cp.cluster), 4) * 4;
  cp.fits = cp.slice <= kSliceCap;
  if (cp.slice > kHalfSliceCap) {
    cp.threads = 512, cp.kind = SliceClass::upto48k;
  } else if (cp.slice > 16384) {
    cp.threads = 256, cp.kind = SliceClass::upto24k;
  } else if (cp.slice > 8192) {
    cp.threads = threads_for(cp.slice, 512), cp.kind = SliceClass::upto16k;
  } else if (cp.slice > 4096) {
    cp.threads = 256, cp.kind = SliceClass::upto8k;
  } else {
    cp.threads = threads_for(cp.slice, 256), cp.kind = SliceClass::upto4k;  // at most 4 float4 per thread
  }
  return cp;
}

// smem[i] = exp(smem[i] - mx) over [0, n); returns this thread's sum of them. The write then
// needs one multiply per value: y = smem[i] * exp(mx - row max) / row sum.
__device__ float exp_in_place(float* smem, long long n, float mx) {
  float s = 0.f;
  float4* s4 = reinterpret_cast<float4*>(smem);
  for (long long i = threadIdx.x; i < n / 4; i += blockDim.x) {
    float4 q = s4[i];
    q = make_float4(expf(q.x - mx), expf(q.y - mx), expf(q.z - mx), expf(q.w - mx));
    s4[i] = q;
    s += (q.x + q.y) + (q.z + q.w);
  }
  for (long long i = n / 4 * 4 + threadIdx.x; i < n; i += blockDim.x) s += (smem[i] = expf(smem[i] - mx));
  return s;
}

// dst[i] = src[i] * scale over [0, n), float4 (src is the 16-byte aligned smem slice).
__device__ void write_scaled(const float* src, float* dst, long long n, float scale) {
  long long done = 0;
  if (aligned16(dst)) {
    const float4* s4 = reinterpret_cast<const float4*>(src);
    float4* d4 = reinterpret_cast<float4*>(dst);
    for (long long i = threadIdx.x; i < n / 4; i += blockDim.x) {
      const float4 q = s4[i];
      d4[i] = make_float4(q.x * scale, q.y * scale, q.z * scale, q.w * scale);
    }
    done = n / 4 * 4;
  }
  for (long long i = done + threadIdx.x; i < n; i += blockDim.x) dst[i] = src[i] * scale;
}

// Warp 0 reads every CTA's published pair through DSMEM (lane r reads rank r) and merges them in
// a fixed order, so every CTA of the cluster gets bit-identical (max, sum) in `result`.
__device__ void cluster_merge(const cg::cluster_group& cluster, MaxSum* published, MaxSum* result) {
  if (threadIdx.x >= 32) return;
  MaxSum v;
  if (threadIdx.x < cluster.num_blocks()) v = *cluster.map_shared_rank(published, threadIdx.x);
  v = warp_merge(v);
  if (threadIdx.x == 0) *result = v;
}

// Persistent: the grid holds as many clusters as can be resident and each walks rows
// row, row + clusters, ...; the next row's first kAhead float4 per thread are fetched into
// registers while the cluster waits at its barrier and writes the current row.
template <int kMaxThreads, int kMinBlocks, int kAhead>
__global__ void __launch_bounds__(kMaxThreads, kMinBlocks) onchip_kernel(Args a, long long slice) {
  extern __shared__ float4 slice_smem[];
  float* smem = reinterpret_cast<float*>(slice_smem);
  __shared__ float scratch[32];
  __shared__ MaxSum published, result;
  const cg::cluster_group cluster = cg::this_cluster();
  const long long ranks = cluster.num_blocks(), clusters = gridDim.x / ranks;
  const long long b = cluster.block_rank() * slice;
  const long long n = b + slice < a.n ? slice : (a.n > b ? a.n - b : 0);
  long long row = blockIdx.x / ranks;
  dev::SliceAhead<kAhead> ahead;
  ahead.fetch(a.x + row * a.n + b, n);
  for (; row < a.m; row += clusters) {
    const float mx = dev::block_max(dev::stage_slice(a.x + row * a.n + b, smem, n, ahead, dev::MaxOp{}), scratch);
    const float sum = dev::block_sum(exp_in_place(smem, n, mx), scratch);
    if (threadIdx.x == 0) published = MaxSum{mx, sum};
    cluster.sync();  // every CTA's pair is published
    cluster_merge(cluster, &published, &result);
    cluster.barrier_arrive();  // done reading the peers; `result` is written
    if (row + clusters < a.m) ahead.fetch(a.x + (row + clusters) * a.n + b, n);
    cluster.barrier_wait();  // no CTA rewrites `published` while a peer may read it
    const MaxSum total = result;
    write_scaled(smem, a.y + row * a.n + b, n, expf(mx - total.m) / total.s);
    __syncthreads();  // smem and `result` are reused by the next row
  }
}

using KernelFn = void (*)(Args, long long);

KernelFn kernel_for(SliceClass kind) {
  switch (kind) {
    case SliceClass::upto4k: return onchip_kernel<256, 5, 4>;
    case SliceClass::upto8k: return onchip_kernel<256, 4, 8>;
    case SliceClass::upto16k: return onchip_kernel<512, 2, 8>;
    case SliceClass::upto24k: return onchip_kernel<256, 2, 24>;
    case SliceClass::upto48k: return onchip_kernel<512, 1, 24>;
  }
  return nullptr;
}

// Once per process: opt in to 192 KB of dynamic shared memory.
void configure_once() {
  static const bool done = [] {
    for (SliceClass kind :
         {SliceClass::upto4k, SliceClass::upto8k, SliceClass::upto16k, SliceClass::upto24k, SliceClass::upto48k}) {
      NB_CUDA_CHECK(cudaFuncSetAttribute(kernel_for(kind), cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         int(kSliceCap * sizeof(float))));
    }
    return true;
  }();
  (void)done;
}

cudaLaunchConfig_t config_for(const ClusterPlan& cp, long long rows, cudaStream_t stream, cudaLaunchAttribute* attr) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(unsigned(cp.cluster * rows));
  cfg.blockDim = dim3(cp.threads);
  cfg.dynamicSmemBytes = std::size_t(cp.slice) * sizeof(float);
  cfg.stream = stream;
  attr->id = cudaLaunchAttributeClusterDimension;
  attr->val.clusterDim.x = unsigned(cp.cluster), attr->val.clusterDim.y = 1, attr->val.clusterDim.z = 1;
  cfg.attrs = attr, cfg.numAttrs = 1;
  return cfg;
}

// Clusters of this plan that fit on the device at once (0: none), asked once per plan: launch()
// runs inside the timed region, so it must not query the driver each time.
int resident_clusters(const ClusterPlan& cp) {
  static std::mutex mutex;
  static std::map<std::pair<int, long long>, int> known;
  const std::lock_guard<std::mutex> lock(mutex);
  const auto key = std::make_pair(cp.cluster, cp.slice);
  if (auto it = known.find(key); it != known.end()) return it->second;
  configure_once();
  cudaLaunchAttribute attr;
  const cudaLaunchConfig_t cfg = config_for(cp, 1, nullptr, &attr);
  int clusters = 0;
  NB_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&clusters, kernel_for(cp.kind), &cfg));
  return known[key] = clusters;
}

void launch(const Problem& p, const DeviceTensors& t, void*, cudaStream_t stream) {
  const Args a = make_args(p, t);
  const ClusterPlan cp = plan_for(a.n);
  const long long clusters = std::min<long long>(a.m, resident_clusters(cp));
  cudaLaunchAttribute attr;
  const cudaLaunchConfig_t cfg = config_for(cp, clusters, stream, &attr);
  NB_CUDA_CHECK(cudaLaunchKernelEx(&cfg, kernel_for(cp.kind), a, cp.slice));
  NB_CHECK_LAUNCH();
}

// A cluster of this size with this much shared memory must be resident at least once.
Support supports(const Problem& p) {
  const Shape s = shape_of(p);
  const ClusterPlan cp = plan_for(s.n);
  if (!cp.fits) return Support::no("a row over 8 CTAs x 192 KB (n > 393216) does not fit one cluster's shared memory");
  int clusters = 0;
  try {
    clusters = resident_clusters(cp);
  } catch (const std::exception& e) {
    return Support::no(std::string("cannot query cluster occupancy: ") + e.what());
  }
  if (clusters < 1)
    return Support::no("a cluster of " + std::to_string(cp.cluster) + " CTAs x " +
                       std::to_string(cp.slice * 4 / 1024) + " KB cannot be resident on this GPU");
  return Support::yes();
}

}  // namespace

KernelVariantSpec onchip_variant() {
  return {"onchip", "fused",
          "row in shared memory (x read once): a persistent grid of clusters of 1..8 CTAs sized to n, (max, sum) "
          "merged through DSMEM, the next row prefetched into registers",
          launch, supports, nullptr, {}};
}

}  // namespace nb::softmax
