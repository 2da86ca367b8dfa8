// Onchip groups: x is read from DRAM once. A persistent cooperative grid gives each channel in
// flight a team of CTAs; each CTA holds its slice of the channel in shared memory, and the team's
// partials are merged a wave later by a coordinating warp while the others copy, fold and write
// (kernels/primitives/team_slices.cuh); y is written from shared memory.
//
// H100, 16x64x256x256: 268 MB read + 268 MB written against split's 805 MB, 0.180 ms at the copy
// ceiling. The first version (each wave's barrier waited for in its wave, two buffers) took
// 0.291 ms, 9.1 us a wave against 5.5 us of bytes; this one 0.219 ms (docs/notes/
// batchnorm-train-perf.md has the steps between). 64x64x512x512 is refused (a 67 MB channel does
// not fit the grid's ~30 MB of shared memory).
#include <algorithm>
#include <string>

#include "harness/cuda_check.hpp"
#include "kernels/batchnorm/device.cuh"
#include "kernels/batchnorm/batchnorm_train/spec.hpp"
#include "kernels/primitives/alignment.cuh"
#include "kernels/primitives/team_slices.cuh"

namespace nb::batchnorm_train {
namespace {

using namespace nb::bn::dev;
using nb::dev::PivotedWelford;
using nb::dev::TeamSlices;

constexpr const char* kColumnsRefusal =
    "1d layout (H = W = 1): a channel is a strided column, one float per 32-byte sector; split's channel tiles "
    "read it coalesced";

// The channel's statistics committed once (saved mean and invstd, running statistics), and y of
// its vectors [j0, j1) written from their copy in shared memory, vector j by the thread that
// copied it (the pipeline's contract).
template <int VEC>
struct NormalizeChannel {
  bn::FwdArgs a;
  ChannelGeom g;
  __device__ __forceinline__ void commit(long long c, float mean, float var) const { commit_stats(a, c, mean, var); }
  __device__ __forceinline__ void write(long long c, unsigned j0, unsigned j1, const float* slice, float mean,
                                        float var, unsigned thread, unsigned threads) const {
    const Affine f(a, c, make_float2(mean, 1.0f / sqrtf(var + a.eps)));
    for (unsigned j = j0 + thread; j < j1; j += threads) {
      float v[VEC], y[VEC];
      load_vec<VEC>(slice, j - j0, v);
      f.apply<VEC>(v, y);
      store_vec<VEC>(a.y, g.offset(c, j), y);
    }
  }
};

template <int VEC>
__global__ void __launch_bounds__(nb::dev::kTeamSliceThreads, 1)
    onchip_groups(bn::FwdArgs a, ChannelGeom g, TeamSlices t, PivotedWelford* partials, unsigned* arrivals) {
  nb::dev::team_slice_pipeline<VEC>(a.x, a.c, g, t, partials, arrivals, NormalizeChannel<VEC>{a, g});
}

const nb::dev::TeamSliceFit& device_fit() { return nb::dev::team_slice_fit(onchip_groups<4>, onchip_groups<1>); }

// The plan on this device, or why there is none: a channel is N runs of H*W.
TeamSlicePlan plan_for(const bn::Shape& s, const nb::dev::TeamSliceFit& f, bool aligned16) {
  TeamSlicePlan p;
  if (s.is_1d())
    p.refusal = kColumnsRefusal;
  else if (!f.why_not.empty())
    p.refusal = f.why_not;
  else
    p = plan_team_slices(s.n, s.c, s.hw, f.resident, f.slice_floats, aligned16, "channel");
  return p;
}

Support supports(const Problem& p) {
  const bn::Shape s = bn::shape_of(p);
  if (s.is_1d()) return Support::no(kColumnsRefusal);
  try {
    const TeamSlicePlan plan = plan_for(s, device_fit(), true);
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
      const TeamSlicePlan plan = plan_for(s, device_fit(), aligned16);
      if (plan.ok()) bytes = std::max(bytes, nb::dev::team_slice_workspace(plan));
    }
    return bytes;
  } catch (const std::exception&) {
    return 0;  // supports() says why
  }
}

void launch(const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t stream) {
  const bn::FwdArgs a = fwd_args(p, t);
  const nb::dev::TeamSliceFit& fit = device_fit();
  const TeamSlicePlan plan = plan_for(bn::shape_of(p), fit, nb::dev::aligned16(a.x, a.y));
  if (!plan.ok()) throw Unsupported(plan.refusal);
  const ChannelGeom g = channel_geom(a.n, a.c, a.hw, plan.vec, unsigned(plan.team));
  if (plan.vec == 4)
    nb::dev::launch_team_slices(onchip_groups<4>, plan, fit, ws, stream, a, g);
  else
    nb::dev::launch_team_slices(onchip_groups<1>, plan, fit, ws, stream, a, g);
}

}  // namespace

std::unique_ptr<Variant> make_onchip_groups_variant() {
  return make_kernel_variant({
      "onchip_groups", "fused",
      "x read once: persistent cooperative grid, a team of CTAs per channel, slices in smem (cp.async, "
      "three buffers), a warp for the team's barrier (waited for a wave later) and Chan merge",
      launch, supports, workspace, {Distribution::offset, Distribution::tiny_var}});
}

}  // namespace nb::batchnorm_train
