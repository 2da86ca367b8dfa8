// Onchip groups: x is read from DRAM once. A persistent cooperative grid gives each channel in
// flight a team of CTAs; each CTA copies its slice of the channel into shared memory (cp.async,
// double buffered, so the next wave's slice lands while this one is merged and written), folds
// it, Chan-merges the team's partials after a team barrier, and writes y from shared memory.
//
// Prediction (H100, 16x64x256x256): 268 MB read + 268 MB written, against split's 805 MB; at the
// 2.99 TB/s copy ceiling 0.180 ms, plus the first wave's copy and the last wave's writes that
// nothing overlaps (~5 us), the zeroing memset and the launch (~3 us) and what the 32 team
// barriers do not hide (~10 us): about 0.20 ms (split: 0.289 ms). 64x64x512x512 is refused (a
// 67 MB channel does not fit the grid's ~30 MB of shared memory).
#include <algorithm>
#include <map>
#include <mutex>

#include "harness/cuda_check.hpp"
#include "kernels/batchnorm/device.cuh"
#include "kernels/batchnorm/group_plan.hpp"
#include "kernels/batchnorm/batchnorm_train/spec.hpp"
#include "kernels/primitives/alignment.cuh"
#include "kernels/primitives/cp_async.cuh"
#include "kernels/primitives/merge.cuh"
#include "kernels/primitives/team_barrier.cuh"

namespace nb::batchnorm_train {
namespace {

using namespace nb::bn::dev;

constexpr int kGroupThreads = 512;

// The plan as the kernel reads it.
struct Teams {
  unsigned team;          // CTAs per channel
  unsigned teams;         // channels in flight; team t takes channels t, t + teams, ...
  unsigned slice_floats;  // floats per slice buffer; the second buffer starts there
};

// A CTA's Welford over its slice, on x minus its own pivot (the slice's first value), and that
// pivot: the merge shifts every partial to rank 0's pivot, an exact difference where the data
// sit far from zero (offset), so the mean carries no rounding of the offset until the end.
struct PivotedWelford {
  float count, mean, m2, pivot;
};
static_assert(sizeof(PivotedWelford) == sizeof(float4), "published with one 16-byte store");

// Copies vectors [j0, j1) of channel c into buf. Warp 0 issues none: the fence before its
// arrival at the team barrier must not wait for the next slice's copies.
template <int VEC>
__device__ __forceinline__ void copy_slice(const float* x, const ChannelGeom& g, long long c, unsigned j0,
                                           unsigned j1, float* buf) {
  if (threadIdx.x >= 32) {
    for (unsigned j = j0 + threadIdx.x - 32; j < j1; j += blockDim.x - 32) {
      const float* src = x + g.offset(c, j) * VEC;
      float* dst = buf + (j - j0) * VEC;
      if constexpr (VEC == 4)
        nb::dev::cp_async_16(dst, src, 16);
      else
        nb::dev::cp_async_4(dst, src, 4);
    }
  }
  nb::dev::cp_async_commit();
}

// Exact two-pass statistics of the slice in shared memory: the mean of x - pivot, then the
// squared deviations from it.
template <int VEC>
__device__ PivotedWelford slice_stats(const float* buf, unsigned vectors, float* scratch) {
  const float pivot = buf[0];
  float s = 0.0f;
  for (unsigned i = threadIdx.x; i < vectors; i += blockDim.x) {
    float v[VEC];
    load_vec<VEC>(buf, i, v);
#pragma unroll
    for (int e = 0; e < VEC; ++e) s += v[e] - pivot;
  }
  const float count = float(vectors * VEC);
  const float mean = nb::dev::block_sum(s, scratch) / count;
  float m2 = 0.0f;
  for (unsigned i = threadIdx.x; i < vectors; i += blockDim.x) {
    float v[VEC];
    load_vec<VEC>(buf, i, v);
#pragma unroll
    for (int e = 0; e < VEC; ++e) {
      const float d = (v[e] - pivot) - mean;
      m2 = fmaf(d, d, m2);
    }
  }
  return {count, mean, nb::dev::block_sum(m2, scratch), pivot};
}

// The team's partials merged in rank order (a fixed tree: every CTA of the team gets the same
// bits), relative to rank 0's pivot.
__device__ PivotedWelford merge_team(const PivotedWelford* slots, unsigned team, Welford* scratch) {
  const float pivot = __ldcg(reinterpret_cast<const float4*>(slots)).w;
  Welford m;
  for (unsigned r = threadIdx.x; r < team; r += blockDim.x) {
    const float4 q = __ldcg(reinterpret_cast<const float4*>(slots + r));
    Welford o;
    o.count = q.x;
    o.mean = (q.w - pivot) + q.y;
    o.m2 = q.z;
    m.merge(o);
  }
  m = nb::dev::block_merge(m, scratch);
  return {m.count, m.mean, m.m2, pivot};
}

template <int VEC>
__device__ __forceinline__ void normalize_slice(const bn::FwdArgs& a, const ChannelGeom& g, long long c, unsigned j0,
                                                unsigned j1, const float* buf, const Affine& f) {
  for (unsigned j = j0 + threadIdx.x; j < j1; j += blockDim.x) {
    float v[VEC], y[VEC];
    load_vec<VEC>(buf, j - j0, v);
    f.apply<VEC>(v, y);
    store_vec<VEC>(a.y, g.offset(c, j), y);
  }
}

// CTA b is rank b % team of team b / team; its slice of every channel of the team is the same
// vector range [j0, j1). Wave k: channel team + k * teams, buffer k & 1, partial slots k & 1 (a
// CTA one wave ahead never overwrites slots a teammate may still read: it passed the barrier of
// the wave in between, which that teammate reaches only after reading).
template <int VEC>
__global__ void __launch_bounds__(kGroupThreads, 1)
    onchip_groups(bn::FwdArgs a, ChannelGeom g, Teams t, PivotedWelford* partials, unsigned* arrivals) {
  extern __shared__ float4 slice_smem[];
  __shared__ float scratch[32];
  __shared__ Welford merge_scratch[32];
  float* const base = reinterpret_cast<float*>(slice_smem);
  const unsigned team = blockIdx.x / t.team, rank = blockIdx.x % t.team;
  const unsigned j0 = g.begin(rank), j1 = g.begin(rank + 1);
  copy_slice<VEC>(a.x, g, team, j0, j1, base);
  unsigned k = 0;
  for (long long c = team; c < a.c; c += t.teams, ++k) {
    float* const cur = base + (k & 1) * t.slice_floats;
    if (c + t.teams < a.c) {
      copy_slice<VEC>(a.x, g, c + t.teams, j0, j1, base + ((k + 1) & 1) * t.slice_floats);
      nb::dev::cp_async_wait<1>();  // this wave's slice has landed (for this thread) ...
    } else {
      nb::dev::cp_async_wait<0>();
    }
    __syncthreads();  // ... and for every thread
    PivotedWelford w = slice_stats<VEC>(cur, j1 - j0, scratch);
    if (t.team > 1) {
      PivotedWelford* slots = partials + (k & 1) * gridDim.x + team * t.team;
      if (threadIdx.x == 0) __stcg(reinterpret_cast<float4*>(slots + rank), make_float4(w.count, w.mean, w.m2, w.pivot));
      nb::dev::team_arrive(arrivals + team);
      nb::dev::team_wait(arrivals + team, t.team * (k + 1));
      w = merge_team(slots, t.team, merge_scratch);
    }
    const float mean = w.pivot + w.mean, var = w.count > 0.0f ? w.m2 / w.count : 0.0f;
    if (rank == 0 && threadIdx.x == 0) commit_stats(a, c, mean, var);
    normalize_slice<VEC>(a, g, c, j0, j1, cur, Affine(a, c, make_float2(mean, 1.0f / sqrtf(var + a.eps))));
    __syncthreads();  // cur receives the copy the next wave issues
  }
}

// What this device offers the kernel: co-resident CTAs and the floats of one slice buffer (half
// of the shared memory a CTA may opt in to, less the kernel's static scratch).
struct DeviceFit {
  int resident = 0;
  long long slice_floats = 0;
  std::size_t smem_bytes = 0;  // both buffers
  std::string why_not;         // non-empty: no cooperative grid on this device
};

DeviceFit measure_fit(int device) {
  DeviceFit f;
  int sms = 0, optin = 0, cooperative = 0;
  NB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  NB_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  NB_CUDA_CHECK(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device));
  if (!cooperative) {
    f.why_not = "the device does not support cooperative launches (the team barrier needs every CTA resident)";
    return f;
  }
  cudaFuncAttributes attr{};
  NB_CUDA_CHECK(cudaFuncGetAttributes(&attr, onchip_groups<4>));
  const std::size_t dynamic = optin > int(attr.sharedSizeBytes) ? (optin - attr.sharedSizeBytes) / 32 * 32 : 0;
  f.slice_floats = (long long)(dynamic / 2 / sizeof(float));
  f.smem_bytes = dynamic;
  int per_sm = 0;
  for (auto kernel : {onchip_groups<4>, onchip_groups<1>}) {
    NB_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(dynamic)));
    int n = 0;
    NB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, kGroupThreads, dynamic));
    per_sm = kernel == onchip_groups<4> ? n : std::min(per_sm, n);
  }
  if (per_sm < 1)
    f.why_not = "a " + std::to_string(kGroupThreads) + "-thread CTA with " + std::to_string(dynamic / 1024) +
                " KB of shared memory does not fit on an SM";
  f.resident = sms * per_sm;
  return f;
}

// Once per device and process: the attribute opt-in is per device.
const DeviceFit& device_fit() {
  static std::mutex m;
  static std::map<int, DeviceFit> fits;
  int device = 0;
  NB_CUDA_CHECK(cudaGetDevice(&device));
  std::lock_guard<std::mutex> lock(m);
  auto it = fits.find(device);
  if (it == fits.end()) it = fits.emplace(device, measure_fit(device)).first;
  return it->second;
}

// The plan on this device, or why there is none.
bn::ChannelGroupPlan plan_for(const bn::Shape& s, const DeviceFit& f, bool aligned16) {
  if (!f.why_not.empty()) {
    bn::ChannelGroupPlan p;
    p.refusal = f.why_not;
    return p;
  }
  return bn::plan_channel_groups(s.n, s.c, s.hw, f.resident, f.slice_floats, aligned16);
}

std::size_t partials_bytes(const bn::ChannelGroupPlan& p) { return 2 * std::size_t(p.ctas()) * sizeof(PivotedWelford); }

Support supports(const Problem& p) {
  const bn::Shape s = bn::shape_of(p);
  if (s.is_1d()) return Support::no(bn::plan_channel_groups(s.n, s.c, s.hw, 1, 1, true).refusal);
  try {
    const bn::ChannelGroupPlan plan = plan_for(s, device_fit(), true);
    return plan.ok() ? Support::yes() : Support::no(plan.refusal);
  } catch (const std::exception& e) {
    return Support::no(std::string("cannot size the cooperative grid: ") + e.what());
  }
}

std::size_t workspace(const Problem& p) {
  const bn::Shape s = bn::shape_of(p);
  if (s.is_1d()) return 0;
  try {
    std::size_t bytes = 0;  // room for the plan of aligned tensors and of misaligned ones
    for (bool aligned16 : {true, false}) {
      const bn::ChannelGroupPlan plan = plan_for(s, device_fit(), aligned16);
      if (plan.ok()) bytes = std::max(bytes, partials_bytes(plan) + sizeof(unsigned) * std::size_t(plan.teams));
    }
    return bytes;
  } catch (const std::exception&) {
    return 0;  // supports() says why
  }
}

void launch(const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t stream) {
  const bn::FwdArgs a = fwd_args(p, t);
  const DeviceFit& fit = device_fit();
  const bn::ChannelGroupPlan plan = plan_for(bn::shape_of(p), fit, nb::dev::aligned16(a.x, a.y));
  if (!plan.ok()) throw Unsupported(plan.refusal);
  auto* partials = static_cast<PivotedWelford*>(ws);
  auto* arrivals = reinterpret_cast<unsigned*>(static_cast<char*>(ws) + partials_bytes(plan));
  NB_CUDA_CHECK(cudaMemsetAsync(arrivals, 0, sizeof(unsigned) * plan.teams, stream));
  const ChannelGeom g = channel_geom(a.n, a.c, a.hw, plan.vec, unsigned(plan.team));
  const Teams teams{unsigned(plan.team), unsigned(plan.teams), unsigned(fit.slice_floats)};
  cudaLaunchConfig_t cfg = {};
  cudaLaunchAttribute cooperative = {};
  cooperative.id = cudaLaunchAttributeCooperative;  // all CTAs co-resident: the team barrier cannot deadlock
  cooperative.val.cooperative = 1;
  cfg.gridDim = dim3(unsigned(plan.ctas())), cfg.blockDim = dim3(kGroupThreads), cfg.dynamicSmemBytes = fit.smem_bytes;
  cfg.stream = stream, cfg.attrs = &cooperative, cfg.numAttrs = 1;
  if (plan.vec == 4)
    NB_CUDA_CHECK(cudaLaunchKernelEx(&cfg, onchip_groups<4>, a, g, teams, partials, arrivals));
  else
    NB_CUDA_CHECK(cudaLaunchKernelEx(&cfg, onchip_groups<1>, a, g, teams, partials, arrivals));
  NB_CHECK_LAUNCH();
}

}  // namespace

std::unique_ptr<Variant> make_onchip_groups_variant() {
  return make_kernel_variant({
      "onchip_groups", "fused",
      "x read once: persistent cooperative grid, a team of CTAs per channel, slices in smem (cp.async, "
      "double-buffered), team barrier + Chan merge",
      launch, supports, workspace, {Distribution::offset, Distribution::tiny_var}});
}

}  // namespace nb::batchnorm_train
