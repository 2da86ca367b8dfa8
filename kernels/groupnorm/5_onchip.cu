// Onchip: x is read from DRAM once. Small groups (<= 512 elements) live in a sub-warp's registers;
// larger ones in shared memory across a team of CTAs of a persistent cooperative grid: each CTA
// holds a slice (96 KB, 2 CTAs per SM), slice (mean, M2) go to the workspace, a team barrier,
// Chan's merge, then each CTA normalizes its slice from shared memory. ~3 groups of 8 MB on chip;
// the next group's slice starts loading into registers during the barrier.
#include <algorithm>

#include "harness/cuda_check.hpp"
#include "kernels/primitives/slice_stage.cuh"
#include "kernels/primitives/team_barrier.cuh"
#include "kernels/groupnorm/common.cuh"
#include "harness/variant.hpp"

namespace nb::groupnorm {
namespace {

// ---- small groups: `width` lanes (a power of two <= 32) per group, K values per lane ----

constexpr long long kSmallMax = 512;

__device__ float segment_sum(float v, int width) {
  for (int offset = width >> 1; offset > 0; offset >>= 1) v += __shfl_xor_sync(dev::kFullMask, v, offset);
  return v;
}

template <int K>
__global__ void small_groups(Args a, int width) {
  const int lane = threadIdx.x & 31, sub = lane % width;
  const long long warp = (blockIdx.x * (long long)blockDim.x + threadIdx.x) >> 5;
  const long long grp = warp * (32 / width) + lane / width;
  const bool live = grp < a.groups;  // dead lanes still shuffle
  const float* src = a.x + (live ? grp : 0) * a.group_elems;
  const int ge = int(a.group_elems);
  float v[K], sum = 0.f, m2 = 0.f;
#pragma unroll
  for (int k = 0; k < K; ++k) v[k] = live && sub + k * width < ge ? src[sub + k * width] : 0.f, sum += v[k];
  const float mean = segment_sum(sum, width) / float(ge);
#pragma unroll
  for (int k = 0; k < K; ++k) m2 += sub + k * width < ge ? (v[k] - mean) * (v[k] - mean) : 0.f;
  const float invstd = invstd_of(mean, segment_sum(m2, width) / float(ge), a.eps);
  const int c0 = int(grp % a.g) * a.cpg;
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const int i = sub + k * width, c = c0 + i / a.hw;
    if (live && i < ge) a.y[grp * a.group_elems + i] = (v[k] - mean) * invstd * a.gamma[c] + a.beta[c];
  }
}

void launch_small(const Args& a, cudaStream_t stream) {
  int width = 1;
  while (width < 32 && width < a.group_elems) width *= 2;
  const long long per_lane = dev::ceil_div(a.group_elems, width);
  const unsigned blocks = unsigned(dev::ceil_div(a.groups, 8LL * (32 / width)));  // 8 warps per block
  if (per_lane <= 1) small_groups<1><<<blocks, 256, 0, stream>>>(a, width);
  else if (per_lane <= 2) small_groups<2><<<blocks, 256, 0, stream>>>(a, width);
  else if (per_lane <= 4) small_groups<4><<<blocks, 256, 0, stream>>>(a, width);
  else if (per_lane <= 8) small_groups<8><<<blocks, 256, 0, stream>>>(a, width);
  else small_groups<16><<<blocks, 256, 0, stream>>>(a, width);
  NB_CHECK_LAUNCH();
}

// ---- large groups: teams of CTAs, slices in shared memory ----

constexpr int kTeamThreads = 512;
constexpr long long kCap = 24576;  // floats of a slice held in shared memory: 96 KB
constexpr std::size_t kSmemBytes = kCap * sizeof(float);

struct TeamPlan {
  int grid;        // co-resident CTAs
  int team;        // CTAs per group
  int teams;       // groups in flight
  long long slice; // elements per CTA (a multiple of 4)
};

// This thread's share of the sum over src[0, n): src[0, held) is copied into smem (its first
// float4s taken from `ahead` when valid), the part past `held` does not fit and is streamed.
template <int K>
__device__ float stage_and_sum(const float* src, float* smem, long long n, long long held,
                               const dev::SliceAhead<K>& ahead) {
  float sum = dev::stage_slice(src, smem, held, ahead, dev::SumOp{});
  for (long long i = held + threadIdx.x; i < n; i += blockDim.x) sum += src[i];
  return sum;
}

__device__ float squared_deviation(const float* smem, const float* src, long long n, long long held, float mean) {
  float m2 = 0.f;
  for (long long i = threadIdx.x; i < held; i += blockDim.x) m2 += (smem[i] - mean) * (smem[i] - mean);
  for (long long i = held + threadIdx.x; i < n; i += blockDim.x) m2 += (src[i] - mean) * (src[i] - mean);
  return m2;
}

// Two passes on chip (sum, then squared deviations from the slice mean): stable without a
// division per element. The result is the slice's Welford triple, ready for Chan's merge.
template <int K>
__device__ dev::Welford slice_stats(const float* src, float* smem, long long n, long long held,
                                   const dev::SliceAhead<K>& ahead, float* scratch) {
  dev::Welford w;
  const float sum = dev::block_sum(stage_and_sum(src, smem, n, held, ahead), scratch);  // barrier: smem complete
  if (n <= 0) return w;
  w.count = float(n);
  w.mean = sum / float(n);
  w.m2 = dev::block_sum(squared_deviation(smem, src, n, held, w.mean), scratch);
  return w;
}

using dev::team_arrive;  // kernels/primitives/team_barrier.cuh
using dev::team_wait;

// Publishes this CTA's slice statistics, waits for the team (fetching `next`'s first float4s into
// `ahead` meanwhile), merges all of them in rank order (identically in every CTA of the team).
// Slots alternate by wave parity: a CTA one wave ahead never overwrites what a teammate may still
// be reading.
template <int K>
__device__ dev::Welford team_merge(dev::Welford w, const TeamPlan& tp, dev::Welford* partials, unsigned* arrivals,
                                   unsigned wave, dev::Welford* scratch, dev::SliceAhead<K>& ahead,
                                   const float* next, long long held) {
  dev::Welford* slots = partials + (wave & 1u) * tp.grid + (blockIdx.x / tp.team) * tp.team;
  if (threadIdx.x == 0) {
    const int rank = blockIdx.x % tp.team;
    __stcg(&slots[rank].count, w.count), __stcg(&slots[rank].mean, w.mean), __stcg(&slots[rank].m2, w.m2);
  }
  team_arrive(arrivals);
  if (next) ahead.fetch(next, held);
  team_wait(arrivals, unsigned(tp.team) * (wave + 1u));
  dev::Welford m;
  for (int r = threadIdx.x; r < tp.team; r += blockDim.x) {
    dev::Welford o;
    o.count = __ldcg(&slots[r].count), o.mean = __ldcg(&slots[r].mean), o.m2 = __ldcg(&slots[r].m2);
    m.merge(o);
  }
  return dev::block_merge(m, scratch);
}

// Float4s per thread of the next group's slice fetched into registers during the team barrier:
// 7 x 16 B x 512 threads = 56 KB of a 96 KB slice (8 would spill at 64 registers per thread,
// the cap for 2 CTAs per SM).
constexpr int kAhead = 7;

__global__ void __launch_bounds__(kTeamThreads, 2) team_kernel(Args a, TeamPlan tp, dev::Welford* partials,
                                                               unsigned* arrivals) {
  extern __shared__ float4 slice_smem[];
  float* smem = reinterpret_cast<float*>(slice_smem);
  __shared__ float scratch[32];
  __shared__ dev::Welford wscratch[32];
  const int team = blockIdx.x / tp.team;
  if (team >= tp.teams) return;  // left over when the grid is not a multiple of the team size
  const long long b = (blockIdx.x % tp.team) * tp.slice;
  const long long e = std::min(b + tp.slice, a.group_elems), n = std::max(0LL, e - b), held = n < kCap ? n : kCap;
  dev::SliceAhead<kAhead> ahead;
  unsigned wave = 0;
  for (long long grp = team; grp < a.groups; grp += tp.teams, ++wave) {
    const float* src = a.x + grp * a.group_elems + b;
    const float* next = grp + tp.teams < a.groups ? src + tp.teams * a.group_elems : nullptr;
    dev::Welford w = slice_stats(src, smem, n, held, ahead, scratch);
    ahead.valid = false;
    if (tp.team > 1) {
      w = team_merge(w, tp, partials, arrivals + team, wave, wscratch, ahead, next, held);
    } else if (next) {
      ahead.fetch(next, held);
    }
    const float invstd = invstd_of(w.mean, w.variance_biased(), a.eps);
    normalize_span(a, grp, b, b + held, smem, w.mean, invstd, threadIdx.x, blockDim.x);
    normalize_span(a, grp, b + held, e, src + held, w.mean, invstd, threadIdx.x, blockDim.x);
    __syncthreads();  // the next wave refills smem
  }
}

struct DeviceFit {
  int sms = 0, ctas_per_sm = 0;
};

// Once per process: opt in to 96 KB of dynamic shared memory and ask how many CTAs fit per SM.
const DeviceFit& device_fit() {
  static const DeviceFit fit = [] {
    DeviceFit f;
    int device = 0;
    NB_CUDA_CHECK(cudaGetDevice(&device));
    NB_CUDA_CHECK(cudaDeviceGetAttribute(&f.sms, cudaDevAttrMultiProcessorCount, device));
    NB_CUDA_CHECK(cudaFuncSetAttribute(team_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(kSmemBytes)));
    NB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&f.ctas_per_sm, team_kernel, kTeamThreads, kSmemBytes));
    return f;
  }();
  return fit;
}

TeamPlan team_plan(const Shape& s) {
  const DeviceFit& f = device_fit();
  TeamPlan tp;
  tp.grid = f.sms * std::min(f.ctas_per_sm, 2);
  tp.team = int(std::min<long long>(dev::ceil_div(s.group_elements(), kCap), tp.grid));
  tp.teams = tp.grid / tp.team;
  tp.slice = dev::ceil_div(dev::ceil_div(s.group_elements(), tp.team), 4) * 4;
  return tp;
}

std::size_t partials_bytes(const TeamPlan& tp) { return 2 * std::size_t(tp.grid) * sizeof(dev::Welford); }

void launch(const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t stream) {
  const Args a = make_args(p, t);
  if (a.group_elems <= kSmallMax) return launch_small(a, stream);
  const TeamPlan tp = team_plan(shape_of(p));
  auto* partials = static_cast<dev::Welford*>(ws);
  auto* arrivals = reinterpret_cast<unsigned*>(static_cast<char*>(ws) + partials_bytes(tp));
  NB_CUDA_CHECK(cudaMemsetAsync(arrivals, 0, sizeof(unsigned) * tp.teams, stream));
  cudaLaunchConfig_t cfg = {};
  cudaLaunchAttribute cooperative = {};
  cooperative.id = cudaLaunchAttributeCooperative;  // all CTAs co-resident: the team barrier cannot deadlock
  cooperative.val.cooperative = 1;
  cfg.gridDim = dim3(tp.grid), cfg.blockDim = dim3(kTeamThreads), cfg.dynamicSmemBytes = kSmemBytes;
  cfg.stream = stream, cfg.attrs = &cooperative, cfg.numAttrs = 1;
  NB_CUDA_CHECK(cudaLaunchKernelEx(&cfg, team_kernel, a, tp, partials, arrivals));
  NB_CHECK_LAUNCH();
}

std::size_t workspace(const Problem& p) {
  if (shape_of(p).group_elements() <= kSmallMax) return 0;
  const TeamPlan tp = team_plan(shape_of(p));
  return partials_bytes(tp) + sizeof(unsigned) * std::size_t(tp.teams);
}

Support supports(const Problem& p) {
  if (shape_of(p).group_elements() <= kSmallMax) return Support::yes();
  try {
    if (device_fit().ctas_per_sm < 1) return Support::no("a 512-thread CTA with 96 KB of shared memory does not fit");
  } catch (const std::exception& e) {
    return Support::no(std::string("cannot size the cooperative grid: ") + e.what());
  }
  return Support::yes();
}

}  // namespace

std::unique_ptr<Variant> make_onchip_variant() {
  return make_kernel_variant({
      "onchip", "fused",
      "x read once: small groups in sub-warp registers; large ones split over a team of CTAs of a persistent "
      "cooperative grid, slices in smem, (mean, M2) merged via workspace + team barrier",
      launch, supports, workspace, {Distribution::offset, Distribution::tiny_var}});
}

}  // namespace nb::groupnorm
