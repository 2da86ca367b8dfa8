#pragma once
// Statistics sets too large for one SM (BatchNorm's channels), read from DRAM once: a persistent
// cooperative grid gives each set in flight a team of CTAs, each CTA copies its slice of the set
// into shared memory (cp.async, three buffers), folds it, publishes its partial and finishes the
// wave before: Chan-merges that wave's partials and hands the set's (mean, variance) and its slice
// in shared memory to the op's `finish`, which writes y. Warp 0 does the team's part (the barrier,
// the partials' L2 round trips, the merges, the arrival's fence) while the other warps copy, fold
// and write, each only its own vectors: one block barrier a wave, and no L2 round trip between a
// wave's bytes and the next's. The team barrier is waited for a wave after its arrival
// (LaggedTeamBarrier). The plan: team_slice_plan.hpp; the design's steps and figures:
// docs/notes/batchnorm-train-perf.md.
#include <cuda_runtime.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>

#include "harness/cuda_check.hpp"
#include "kernels/primitives/cp_async.cuh"
#include "kernels/primitives/merge.cuh"
#include "kernels/primitives/reduce.cuh"
#include "kernels/primitives/team_barrier.cuh"
#include "kernels/primitives/team_slice_plan.hpp"
#include "kernels/primitives/welford.cuh"

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

// This data warp's share of the slice in shared memory (the vectors its own lanes copied, so that
// each lane's cp.async wait makes them visible without a block barrier), folded in two passes
// about the CTA's pivot (the slice's first value, read from global memory a wave ahead): the
// count, the sum of x - pivot, and the squared deviations from the warp's own mean. Every lane
// gets them; a warp with no vector gets zeros.
struct WarpSums {
  float count, sum, m2, pad;  // pad: 16 bytes, one shared-memory store and load
};
template <int VEC>
__device__ WarpSums warp_slice_sums(const float* buf, unsigned vectors, float pivot) {
  float s = 0.0f, n = 0.0f;
  for (unsigned i = data_thread(); i < vectors; i += kDataThreads) {
    float v[VEC];
    slice_vector<VEC>(buf, i, v);
    n += float(VEC);
#pragma unroll
    for (int e = 0; e < VEC; ++e) s += v[e] - pivot;
  }
  const float count = warp_sum(n), sum = warp_sum(s);
  if (count == 0.0f) return {0.0f, 0.0f, 0.0f, 0.0f};
  const float mean = sum / count;
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
  return {count, sum, warp_sum(m2), 0.0f};
}

// The data warps' sums combined by warp 0 into the CTA's partial: the mean of x - pivot from the
// summed sums, and M2 = sum of the warps' M2 + count * (warp mean - mean)^2 (Chan's merge of a
// common pivot's sums: two warp sums and a division a lane).
__device__ __forceinline__ PivotedWelford merge_warps(const WarpSums* warp_sums, float pivot) {
  const unsigned lane = threadIdx.x & 31;
  const WarpSums w = lane < unsigned(kDataWarps) ? warp_sums[lane] : WarpSums{0.0f, 0.0f, 0.0f, 0.0f};
  const float count = warp_sum(w.count), mean = warp_sum(w.sum) / count;
  const float d = w.count > 0.0f ? w.sum / w.count - mean : 0.0f;
  return {count, mean, warp_sum(fmaf(w.count * d, d, w.m2)), pivot};
}

// Partials merged by warp 0 in a fixed order (lane l takes partials l, l + 32, ... in turn, then
// the lanes' tree: the same bits wherever the same partials are merged), relative to partial 0's
// pivot. Every load is issued before the first is used. Partials of count 0 drop out.
template <int MAX, class Load>
__device__ __forceinline__ PivotedWelford warp_merge_pivoted(unsigned n, Load load) {
  const unsigned lane = threadIdx.x & 31;
  float4 q[MAX / 32];
#pragma unroll
  for (int i = 0; i < MAX / 32; ++i)
    if (lane + 32u * i < n) q[i] = load(lane + 32 * i);
  const float pivot = load(0).w;
  Welford m;
#pragma unroll
  for (int i = 0; i < MAX / 32; ++i) {
    if (lane + 32u * i >= n) break;
    Welford o;
    o.count = q[i].x;
    o.mean = (q[i].w - pivot) + q[i].y;
    o.m2 = q[i].z;
    m.merge(o);
  }
  m = warp_merge(m);
  return {m.count, m.mean, m.m2, pivot};
}

// The team's partials of a wave, merged by warp 0 (every CTA of the team gets the same bits).
__device__ __forceinline__ PivotedWelford merge_team(const PivotedWelford* slots, unsigned team) {
  return warp_merge_pivoted<kMaxTeam>(
      team, [&](unsigned r) { return __ldcg(reinterpret_cast<const float4*>(slots + r)); });
}

// The pipeline of one CTA over its team's sets (see the header). Wave k, around its one block
// barrier: warp 0 waits for the team's arrival at k - 1 and merges its partials while the data
// warps issue the copy of k + 1 and fold the slice of k; after the barrier that hands each side's
// result to the other, warp 0 publishes k's partial and arrives (its fence) while the data warps
// write y of k - 1. finish.commit(set, mean, variance) runs once a set (rank 0's thread 0:
// BatchNorm's saved and running statistics); finish.write(set, j0, j1, slice, mean, variance,
// thread, threads) writes the slice's y from shared memory on the data warps, vector j by data
// thread (j - j0) % threads, the thread that copied it (no barrier guards the buffer otherwise).
// partials: kPartialSets * gridDim.x slots; arrivals: two counters a team, zeroed before the
// launch; team <= kMaxTeam.
template <int VEC, class Geom, class Finish>
__device__ __forceinline__ void team_slice_pipeline(const float* x, long long sets, const Geom& g, TeamSlices t,
                                                    PivotedWelford* partials, unsigned* arrivals, Finish finish) {
  extern __shared__ float4 team_slice_smem[];
  __shared__ WarpSums warp_sums[2][kDataWarps];  // by wave parity: written a wave ahead of the last read
  __shared__ PivotedWelford handed_merge[2];
  float* const base = reinterpret_cast<float*>(team_slice_smem);
  const unsigned team = blockIdx.x / t.team, rank = blockIdx.x % t.team;
  const unsigned j0 = g.begin(rank), j1 = g.begin(rank + 1);
  const unsigned waves = unsigned((sets - team + t.teams - 1) / t.teams);  // sets team, team + teams, ... < sets
  const LaggedTeamBarrier barrier{arrivals + 2 * team, t.team};
  const bool coordinator = threadIdx.x < 32;
  auto set_of = [&](unsigned k) { return team + (long long)k * t.teams; };
  auto buffer = [&](unsigned k) { return base + (k % kSliceBuffers) * t.slice_floats; };
  auto slots = [&](unsigned k) { return partials + (k % kPartialSets) * gridDim.x + team * t.team; };
  auto pivot_of = [&](unsigned k) { return __ldg(x + g.offset(set_of(k), j0) * VEC); };  // the slice's first value
  if (!coordinator && waves > 0) copy_slice<VEC>(x, g, set_of(0), j0, j1, buffer(0));
  float pivot = waves > 0 ? pivot_of(0) : 0.0f, next_pivot = 0.0f;  // of wave k, of wave k + 1 (loaded a wave ahead)
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
          handed_merge[(k - 1) & 1] = m;
        }
      }
    } else if (k < waves) {
      if (k + 1 < waves) {
        next_pivot = pivot_of(k + 1);
        copy_slice<VEC>(x, g, set_of(k + 1), j0, j1, buffer(k + 1));
        cp_async_wait<1>();  // this wave's slice has landed (what this thread copied)
      } else {
        cp_async_wait<0>();
      }
      const WarpSums w = warp_slice_sums<VEC>(buffer(k), j1 - j0, pivot);
      if ((threadIdx.x & 31) == 0) warp_sums[k & 1][threadIdx.x / 32 - 1] = w;
    }
    __syncthreads();  // k's sums to warp 0, k - 1's merge to the data warps: the wave's one block barrier
    if (coordinator) {
      if (k < waves) own = merge_warps(warp_sums[k & 1], pivot);
      if (k < waves && t.team > 1 && threadIdx.x == 0) {
        __stcg(reinterpret_cast<float4*>(slots(k) + rank), make_float4(own.count, own.mean, own.m2, own.pivot));
        barrier.arrive(k);  // its fence overlaps the data warps' writes
      }
    } else if (k > 0) {
      const PivotedWelford m = handed_merge[(k - 1) & 1];
      finish.write(set_of(k - 1), j0, j1, static_cast<const float*>(buffer(k - 1)), m.pivot + m.mean,
                   m.count > 0.0f ? m.m2 / m.count : 0.0f, data_thread(), unsigned(kDataThreads));
    }
    // No second barrier: a data thread reads and rewrites only the vectors it copies, so buffer(k - 1)
    // takes the copy of k + 2 from the same threads that wrote it out; the handed values alternate
    // by parity, and this wave's barrier orders one wave's reads before the write two waves on.
    if (k + 1 < waves) pivot = coordinator ? pivot_of(k + 1) : next_pivot;
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
