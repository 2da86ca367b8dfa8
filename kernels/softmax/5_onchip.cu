// Onchip: a row lives in shared memory, so x is read from DRAM exactly once. A thread-block
// cluster sized to N (1..16 CTAs of <= 96 KB) splits the row; each CTA reduces its slice, publishes
// (max, sum) in its shared memory, and after cluster.sync() merges all of them through DSMEM.
#include <cooperative_groups.h>

#include <string>

#include "harness/cuda_check.hpp"
#include "kernels/softmax/common.cuh"
#include "kernels/softmax/variants.hpp"

namespace nb::softmax {
namespace {

namespace cg = cooperative_groups;

constexpr long long kSliceCap = 24576;  // floats per CTA: 96 KB, two CTAs per SM
constexpr int kMaxCluster = 16;         // non-portable above 8

struct ClusterPlan {
  int cluster = 1;      // CTAs per row
  long long slice = 0;  // elements per CTA, a multiple of 4
  int threads = 64;
  bool fits = false;
};

ClusterPlan plan_for(long long n) {
  ClusterPlan cp;
  while (cp.cluster < kMaxCluster && dev::ceil_div(n, cp.cluster) > kSliceCap) cp.cluster *= 2;
  cp.slice = dev::ceil_div(dev::ceil_div(n, cp.cluster), 4) * 4;
  cp.fits = cp.slice <= kSliceCap;
  cp.threads = threads_for(cp.slice, 512);
  return cp;
}

// Copies src[0, n) into smem and returns this thread's max over it.
__device__ float stage_max(const float* src, float* smem, long long n) {
  float mx = -FLT_MAX;
  long long done = 0;
  if (aligned16(src, smem)) {
    const float4* s4 = reinterpret_cast<const float4*>(src);
    float4* d4 = reinterpret_cast<float4*>(smem);
#pragma unroll 4
    for (long long i = threadIdx.x; i < n / 4; i += blockDim.x) {
      const float4 q = s4[i];
      d4[i] = q;
      mx = fmaxf(mx, fmaxf(fmaxf(q.x, q.y), fmaxf(q.z, q.w)));
    }
    done = n / 4 * 4;
  }
  for (long long i = done + threadIdx.x; i < n; i += blockDim.x) mx = fmaxf(mx, smem[i] = src[i]);
  return mx;
}

__device__ float exp_sum(const float* smem, long long n, float mx) {
  float s = 0.f;
  for (long long i = threadIdx.x; i < n; i += blockDim.x) s += expf(smem[i] - mx);
  return s;
}

// Warp 0 reads every CTA's published pair through DSMEM (lane r reads rank r) and merges them in
// a fixed order, so every CTA of the cluster gets bit-identical (max, sum).
__device__ MaxSum cluster_merge(const cg::cluster_group& cluster, MaxSum* published, MaxSum* result) {
  if (threadIdx.x < 32) {
    MaxSum v;
    if (threadIdx.x < cluster.num_blocks()) v = *cluster.map_shared_rank(published, threadIdx.x);
    v = warp_merge(v);
    if (threadIdx.x == 0) *result = v;
  }
  cluster.sync();  // every peer has read `published`: none may leave before this
  return *result;
}

__global__ void __launch_bounds__(512) onchip_kernel(Args a, long long slice) {
  extern __shared__ float4 slice_smem[];
  float* smem = reinterpret_cast<float*>(slice_smem);
  __shared__ float scratch[32];
  __shared__ MaxSum published, result;
  const cg::cluster_group cluster = cg::this_cluster();
  const long long row = blockIdx.x / cluster.num_blocks();
  const long long b = cluster.block_rank() * slice;
  const long long n = b + slice < a.n ? slice : (a.n > b ? a.n - b : 0);
  const float* src = a.x + row * a.n + b;
  const float mx = dev::block_max(stage_max(src, smem, n), scratch);
  const float sum = dev::block_sum(exp_sum(smem, n, mx), scratch);
  if (threadIdx.x == 0) published = MaxSum{mx, sum};
  cluster.sync();
  const MaxSum total = cluster_merge(cluster, &published, &result);
  write_softmax(smem, a.y + row * a.n + b, n, total.m, 1.0f / total.s, threadIdx.x, blockDim.x);
}

// Once per process: opt in to 96 KB of dynamic shared memory and to clusters of 16.
void configure_once() {
  static const bool done = [] {
    NB_CUDA_CHECK(cudaFuncSetAttribute(onchip_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       int(kSliceCap * sizeof(float))));
    NB_CUDA_CHECK(cudaFuncSetAttribute(onchip_kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
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

void launch(const Problem& p, const DeviceTensors& t, void*, cudaStream_t stream) {
  const Args a = make_args(p, t);
  const ClusterPlan cp = plan_for(a.n);
  configure_once();
  cudaLaunchAttribute attr;
  const cudaLaunchConfig_t cfg = config_for(cp, a.m, stream, &attr);
  NB_CUDA_CHECK(cudaLaunchKernelEx(&cfg, onchip_kernel, a, cp.slice));
  NB_CHECK_LAUNCH();
}

// A cluster of this size with this much shared memory must be resident at least once.
Support supports(const Problem& p) {
  const Shape s = shape_of(p);
  const ClusterPlan cp = plan_for(s.n);
  if (!cp.fits) return Support::no("a row over 16 CTAs x 96 KB (n > 393216) does not fit one cluster's shared memory");
  int clusters = 0;
  try {
    configure_once();
    cudaLaunchAttribute attr;
    const cudaLaunchConfig_t cfg = config_for(cp, 1, nullptr, &attr);
    NB_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&clusters, onchip_kernel, &cfg));
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
          "row in shared memory (x read once): a cluster of 1..16 CTAs sized to n, (max, sum) merged through DSMEM",
          launch, supports, nullptr, {}};
}

}  // namespace nb::softmax
