#pragma once
// Statistics sets too large for one SM (BatchNorm's channels), read from DRAM once: a persistent
// cooperative grid gives each set in flight a team of CTAs, each CTA copies its slice of the set
// into shared memory (cp.async, three buffers), folds it, publishes its partial and finishes the
// wave before: Chan-merges that wave's partials and hands the set's (mean, variance) and its slice
// in shared memory to the op's `finish`, which writes y. Warp 0 does the team's part (the barrier,
// the partials' L2 round trips, the merge, the arrival's fence) while the other warps copy, fold
// (on barriers of their own) and write: no L2 round trip between a wave's bytes and the next's.
// The team barrier is waited for a wave after its arrival (LaggedTeamBarrier). The plan:
// team_slice_plan.hpp; the design's steps and figures: docs/notes/batchnorm-train-perf.md.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>

#include "harness/cuda_check.hpp"
#include "kernels/primitives/cp_async.cuh"
#include "kernels/primitives/mbarrier.cuh"
#include "kernels/primitives/reduce.cuh"
#include "kernels/primitives/team_barrier.cuh"
#include "kernels/primitives/team_slice_plan.hpp"

namespace nb::dev {

inline constexpr int kTeamSliceThreads = 512;
inline constexpr int kDataWarps = kTeamSliceThreads / 32 - 1;  // warps 1..15: copies, statistics, y
inline constexpr int kDataThreads = kDataWarps * 32;
inline constexpr int kMaxTeam = kMaxTeamCtas;  // partials warp 0 merges (five a lane)

// Wave k of a team takes set team + k * teams into buffer k % 3 and publishes its partial into
// slot set k % 2, then finishes wave k - 1. Three buffers: wave k + 1's copy lands in the one
// wave k - 2 was written from. Two slot sets: a CTA publishes wave k's partial only after its
// team arrived at k - 1, so while a slow teammate still reads wave k - 1's partials (it has not
// arrived at k yet) no one publishes past wave k.
inline constexpr unsigned kSliceBuffers = 3, kPartialSets = 2;

// The plan as the kernel reads it.
struct TeamSlices {
  unsigned team;          // CTAs per set
  unsigned teams;         // sets in flight; team t takes sets t, t + teams, ...
  unsigned slice_floats;  // floats per slice buffer (a multiple of 4); buffer i starts at i * slice_floats
};

// A CTA's Welford over its slice, on x minus its own pivot (the slice's first value), and that
// pivot: the merge shifts every partial to rank 0's pivot, an exact difference where the data
// sit far from zero (offset), so the mean carries no rounding of the offset until the end.
struct PivotedWelford {
  float count, mean, m2, pivot;
};
static_assert(sizeof(PivotedWelford) == sizeof(float4), "published with one 16-byte store");

template <int VEC>
__device__ __forceinline__ void slice_vector(const float* buf, unsigned i, float (&v)[VEC]) {
  if constexpr (VEC == 4) {
    const float4 q = reinterpret_cast<const float4*>(buf)[i];
    v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
  } else {
#pragma unroll
    for (int e = 0; e < VEC; ++e) v[e] = buf[i * VEC + e];
  }
}

// A data thread's index among the data warps.
__device__ __forceinline__ unsigned data_thread() { return threadIdx.x - 32; }

// The data warps' own barriers, three a wave (DataBarrier): an mbarrier of kDataThreads arrivals
// in shared memory, one phase a wave. Not a named barrier (`bar.sync 1, 480`): 0.7% faster on the
// H100, but racecheck then reports hazards on the __syncthreads handoffs with warp 0 that are not
// there (tests/probes/racecheck_named_barrier.cu).
enum DataBarrier { kSliceLanded, kSliceSum, kSliceSquares, kDataBarriers };
__device__ __forceinline__ void data_barrier(std::uint64_t* bar, unsigned wave) {
  mbarrier_arrive(bar);
  mbarrier_wait(bar, wave & 1u);
}

// Copies vectors [j0, j1) of `set` into buf (data warps).
template <int VEC, class Geom>
__device__ __forceinline__ void copy_slice(const float* x, const Geom& g, long long set, unsigned j0, unsigned j1,
                                           float* buf) {
  for (unsigned j = j0 + data_thread(); j < j1; j += kDataThreads) {
    const float* src = x + g.offset(set, j) * VEC;
    float* dst = buf + (j - j0) * VEC;
    if constexpr (VEC == 4)
      cp_async_16(dst, src, 16);
    else
      cp_async_4(dst, src, 4);
  }
  cp_async_commit();
}

// The sum of v over the data warps, added in warp order (the same bits in every CTA), to every
// data thread. scratch: kDataWarps floats, rewritten only after the wave's block barriers.
__device__ __forceinline__ float data_sum(float v, float* scratch, std::uint64_t* bar, unsigned wave) {
  v = warp_sum(v);
  if ((threadIdx.x & 31) == 0) scratch[threadIdx.x / 32 - 1] = v;
  data_barrier(bar, wave);
  float total = 0.0f;
#pragma unroll
  for (int w = 0; w < kDataWarps; ++w) total += scratch[w];
  return total;
}

// Exact two-pass statistics of the slice in shared memory (data warps, after the slice's data
// barrier): the mean of x - pivot, then the squared deviations from it; the pivot is the slice's
// first value.
template <int VEC>
__device__ PivotedWelford slice_stats(const float* buf, unsigned vectors, float (*scratch)[kDataWarps],
                                      std::uint64_t* bars, unsigned wave) {
  const float pivot = buf[0];
  float s = 0.0f;
  for (unsigned i = data_thread(); i < vectors; i += kDataThreads) {
    float v[VEC];
    slice_vector<VEC>(buf, i, v);
#pragma unroll
    for (int e = 0; e < VEC; ++e) s += v[e] - pivot;
  }
  const float count = float(vectors * VEC);
  const float mean = data_sum(s, scratch[0], bars + kSliceSum, wave) / count;
  float m2 = 0.0f;
  for (unsigned i = data_thread(); i < vectors; i += kDataThreads) {
    float v[VEC];
    slice_vector<VEC>(buf, i, v);
#pragma unroll
    for (int e = 0; e < VEC; ++e) {
      const float d = (v[e] - pivot) - mean;
      m2 = fmaf(d, d, m2);
    }
  }
  return {count, mean, data_sum(m2, scratch[1], bars + kSliceSquares, wave), pivot};
}

// The team's partials of a wave merged by warp 0 about rank 0's pivot P, as sums in a fixed
// order (partials lane, lane + 32, ... in each lane, then warp sums: every CTA of the team gets
// the same bits): with m_r = (pivot_r - P) + mean_r, the mean is sum n_r m_r / N and M2 is
// sum (M2_r + n_r (m_r - mean)^2), Chan's merge of all partials at once, with three warp sums and
// one division in place of a Welford merge (a division) at each partial and each tree level.
// Every load is issued before the first is used.
__device__ __forceinline__ PivotedWelford merge_team(const PivotedWelford* slots, unsigned team) {
  constexpr int kPerLane = kMaxTeam / 32;
  const unsigned lane = threadIdx.x & 31;
  float4 q[kPerLane];
#pragma unroll
  for (int i = 0; i < kPerLane; ++i)
    q[i] = lane + 32u * i < team ? __ldcg(reinterpret_cast<const float4*>(slots + lane + 32 * i))
                                 : make_float4(0.0f, 0.0f, 0.0f, 0.0f);  // count 0: drops out
  const float pivot = __ldcg(&slots[0].pivot);
  float shifted[kPerLane], n = 0.0f, sum = 0.0f;
#pragma unroll
  for (int i = 0; i < kPerLane; ++i) {
    shifted[i] = q[i].x > 0.0f ? (q[i].w - pivot) + q[i].y : 0.0f;
    n += q[i].x;
    sum = fmaf(q[i].x, shifted[i], sum);
  }
  const float count = warp_sum(n), mean = warp_sum(sum) / count;
  float m2 = 0.0f;
#pragma unroll
  for (int i = 0; i < kPerLane; ++i) {
    const float d = shifted[i] - mean;
    m2 += fmaf(q[i].x * d, d, q[i].z);
  }
  return {count, mean, warp_sum(m2), pivot};
}

// The pipeline of one CTA over its team's sets (see the header). Wave k, between two block
// barriers: warp 0 waits for the team's arrival at k - 1 and merges its partials while the data
// warps issue the copy of k + 1 and fold the slice of k (their own three barriers); after the
// barrier that hands each side's result to the other, warp 0 publishes k's partial and arrives
// (its fence) while the data warps write y of k - 1. finish.commit(set, mean, variance) runs once
// a set (rank 0's thread 0: BatchNorm's saved and running statistics); finish.write(set, j0, j1,
// slice, mean, variance, thread, threads) writes the slice's y from shared memory on the data
// warps. partials: kPartialSets * gridDim.x slots; arrivals: two counters a team, zeroed before
// the launch; team <= kMaxTeam.
template <int VEC, class Geom, class Finish>
__device__ __forceinline__ void team_slice_pipeline(const float* x, long long sets, const Geom& g, TeamSlices t,
                                                    PivotedWelford* partials, unsigned* arrivals, Finish finish) {
  extern __shared__ __align__(128) float4 team_slice_smem[];  // past 176 bytes of statics; measured level
  __shared__ float scratch[2][kDataWarps];
  __shared__ PivotedWelford handed_stats, handed_merge;
  __shared__ std::uint64_t data_bars[kDataBarriers];
  float* const base = reinterpret_cast<float*>(team_slice_smem);
  const unsigned team = blockIdx.x / t.team, rank = blockIdx.x % t.team;
  const unsigned j0 = g.begin(rank), j1 = g.begin(rank + 1);
  const unsigned waves = unsigned((sets - team + t.teams - 1) / t.teams);  // sets team, team + teams, ... < sets
  const LaggedTeamBarrier barrier{arrivals + 2 * team, t.team};
  const bool coordinator = threadIdx.x < 32;
  auto set_of = [&](unsigned k) { return team + (long long)k * t.teams; };
  auto buffer = [&](unsigned k) { return base + (k % kSliceBuffers) * t.slice_floats; };
  auto slots = [&](unsigned k) { return partials + (k % kPartialSets) * gridDim.x + team * t.team; };
  if (threadIdx.x < kDataBarriers) mbarrier_init(data_bars + threadIdx.x, kDataThreads);
  __syncthreads();
  if (!coordinator && waves > 0) copy_slice<VEC>(x, g, set_of(0), j0, j1, buffer(0));
  PivotedWelford own{};  // warp 0: this CTA's partial of the wave before
  for (unsigned k = 0; k <= waves; ++k) {
    if (coordinator) {
      if (k > 0) {
        PivotedWelford m = own;
        if (t.team > 1) {
          barrier.wait_warp(k - 1);
          m = merge_team(slots(k - 1), t.team);
        }
        if (threadIdx.x == 0) {
          if (rank == 0) finish.commit(set_of(k - 1), m.pivot + m.mean, m.count > 0.0f ? m.m2 / m.count : 0.0f);
          handed_merge = m;
        }
      }
    } else if (k < waves) {
      if (k + 1 < waves) {
        copy_slice<VEC>(x, g, set_of(k + 1), j0, j1, buffer(k + 1));
        cp_async_wait<1>();  // this wave's slice has landed (for this thread) ...
      } else {
        cp_async_wait<0>();
      }
      data_barrier(data_bars + kSliceLanded, k);  // ... and for every data thread
      const PivotedWelford w = slice_stats<VEC>(buffer(k), j1 - j0, scratch, data_bars, k);
      if (threadIdx.x == 32) handed_stats = w;
    }
    __syncthreads();  // k's partial to warp 0, k - 1's merge to the data warps
    if (coordinator) {
      if (k < waves) own = handed_stats;
      if (k < waves && t.team > 1 && threadIdx.x == 0) {
        __stcg(reinterpret_cast<float4*>(slots(k) + rank), make_float4(own.count, own.mean, own.m2, own.pivot));
        barrier.arrive(k);  // its fence overlaps the data warps' writes
      }
    } else if (k > 0) {
      const PivotedWelford m = handed_merge;
      finish.write(set_of(k - 1), j0, j1, static_cast<const float*>(buffer(k - 1)), m.pivot + m.mean,
                   m.count > 0.0f ? m.m2 / m.count : 0.0f, data_thread(), unsigned(kDataThreads));
    }
    __syncthreads();  // buffer(k - 1) receives the copy the next wave issues; the handed values are read
  }
}

// What a device offers a team-slice kernel: co-resident CTAs and the floats of one slice buffer
// (a third of the shared memory a CTA may opt in to, less the kernel's static scratch).
struct TeamSliceFit {
  int resident = 0;
  long long slice_floats = 0;
  std::size_t smem_bytes = 0;  // every buffer
  std::string why_not;         // non-empty: no cooperative grid on this device
};

// Opts both instantiations (float4 and float copies) in to the shared memory and asks how many
// CTAs of either fit an SM.
template <class Kernel>
TeamSliceFit measure_team_slice_fit(int device, Kernel vec4, Kernel vec1) {
  TeamSliceFit f;
  int sms = 0, optin = 0, cooperative = 0;
  NB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  NB_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  NB_CUDA_CHECK(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device));
  if (!cooperative) {
    f.why_not = "the device does not support cooperative launches (the team barrier needs every CTA resident)";
    return f;
  }
  cudaFuncAttributes attr{};
  NB_CUDA_CHECK(cudaFuncGetAttributes(&attr, vec4));
  const std::size_t dynamic = optin > int(attr.sharedSizeBytes) ? (optin - attr.sharedSizeBytes) / 32 * 32 : 0;
  f.slice_floats = (long long)(dynamic / kSliceBuffers / sizeof(float4)) * 4;  // each buffer on 16 bytes
  f.smem_bytes = dynamic;
  int per_sm = 0;
  for (Kernel kernel : {vec4, vec1}) {
    NB_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(dynamic)));
    int n = 0;
    NB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, kTeamSliceThreads, dynamic));
    per_sm = kernel == vec4 ? n : std::min(per_sm, n);
  }
  if (per_sm < 1)
    f.why_not = "a " + std::to_string(kTeamSliceThreads) + "-thread CTA with " + std::to_string(dynamic / 1024) +
                " KB of shared memory does not fit on an SM";
  f.resident = sms * per_sm;
  return f;
}

// The fit of a kernel on the current device, measured once per device and process (the attribute
// opt-in is per device).
template <class Kernel>
const TeamSliceFit& team_slice_fit(Kernel vec4, Kernel vec1) {
  static std::mutex m;
  static std::map<std::pair<int, const void*>, TeamSliceFit> fits;
  int device = 0;
  NB_CUDA_CHECK(cudaGetDevice(&device));
  std::lock_guard<std::mutex> lock(m);
  const auto key = std::make_pair(device, reinterpret_cast<const void*>(vec4));
  auto it = fits.find(key);
  if (it == fits.end()) it = fits.emplace(key, measure_team_slice_fit(device, vec4, vec1)).first;
  return it->second;
}

// Workspace of a plan: the partial slots, then the arrival counters.
inline std::size_t team_slice_partials_bytes(const TeamSlicePlan& p) {
  return kPartialSets * std::size_t(p.ctas()) * sizeof(PivotedWelford);
}
inline std::size_t team_slice_workspace(const TeamSlicePlan& p) {
  return team_slice_partials_bytes(p) + 2 * sizeof(unsigned) * std::size_t(p.teams);
}

// Zeroes the counters and launches the plan's cooperative grid (all CTAs co-resident, so the
// team barrier cannot deadlock): kernel(args..., TeamSlices, partials, arrivals).
template <class... KernelArgs, class... Args>
void launch_team_slices(void (*kernel)(KernelArgs...), const TeamSlicePlan& plan, const TeamSliceFit& fit, void* ws,
                        cudaStream_t stream, Args... args) {
  auto* partials = static_cast<PivotedWelford*>(ws);
  auto* arrivals = reinterpret_cast<unsigned*>(static_cast<char*>(ws) + team_slice_partials_bytes(plan));
  if (plan.team > kMaxTeam) throw std::logic_error("team-slice plan: a team larger than warp 0 merges");  // plan_team_slices caps it
  NB_CUDA_CHECK(cudaMemsetAsync(arrivals, 0, 2 * sizeof(unsigned) * std::size_t(plan.teams), stream));
  const TeamSlices t{unsigned(plan.team), unsigned(plan.teams), unsigned(fit.slice_floats)};
  cudaLaunchConfig_t cfg = {};
  cudaLaunchAttribute cooperative = {};
  cooperative.id = cudaLaunchAttributeCooperative;
  cooperative.val.cooperative = 1;
  cfg.gridDim = dim3(unsigned(plan.ctas())), cfg.blockDim = dim3(kTeamSliceThreads), cfg.dynamicSmemBytes = fit.smem_bytes;
  cfg.stream = stream, cfg.attrs = &cooperative, cfg.numAttrs = 1;
  NB_CUDA_CHECK(cudaLaunchKernelEx(&cfg, kernel, args..., t, partials, arrivals));
  NB_CHECK_LAUNCH();
}

}  // namespace nb::dev
