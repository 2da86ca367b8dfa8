// Split: (channel, slice) blocks (2d) or (channel-tile, row-slice) blocks (1d, threads on
// consecutive channels) write partial sums; a warp per channel adds them; then the dx pass, float4
// (2d: the whole tensor in address order; rows: channel tiles in reverse order).
#include "harness/cuda_check.hpp"
#include "kernels/batchnorm/batchnorm_bwd/spec.hpp"
#include "kernels/batchnorm/flat_pass.cuh"
#include "kernels/batchnorm/split_plan.cuh"
#include "kernels/primitives/alignment.cuh"

namespace nb::batchnorm_bwd {
namespace {

using namespace nb::bn::dev;

template <int VEC>
__global__ void __launch_bounds__(kThreads) partials_2d(bn::BwdArgs a, ChannelGeom g, float2* part) {
  __shared__ float scratch[32];
  const BlockWork work = block_work(g, blockIdx.x);
  const float2 s = block_sum2(
      bwd_sums_range<VEC>(a, g, work.c, work.j0, work.j1, threadIdx.x, blockDim.x, a.save_mean[work.c]), scratch);
  if (threadIdx.x == 0) part[work.part] = s;
}

template <int VEC>
__global__ void __launch_bounds__(kTileX* kTileY) partials_rows(bn::BwdArgs a, ChannelGeom g, float2* part) {
  __shared__ float2 tile[kTileY][kTileX * VEC];
  const long long cv = blockIdx.x * (long long)kTileX + threadIdx.x;
  const unsigned k = blockIdx.y;
  float2 s[VEC];
  for (int e = 0; e < VEC; ++e) s[e] = make_float2(0.0f, 0.0f);
  if (cv < g.c_count) {
    float mean[VEC];
    for (int e = 0; e < VEC; ++e) mean[e] = a.save_mean[cv * VEC + e];
    const float* const src[2] = {a.x, a.dy};
    for_channel_range<VEC, 2>(g, cv, g.begin(k), g.begin(k + 1), threadIdx.y, kTileY, src,
                              [&](long long, const Loaded<VEC, 2>& l) {
#pragma unroll
                                for (int e = 0; e < VEC; ++e) add_bwd_sums<1>(s[e], mean[e], {l.v[0][e]}, {l.v[1][e]});
                              });
  }
  for (int e = 0; e < VEC; ++e) tile[threadIdx.y][threadIdx.x * VEC + e] = s[e];
  __syncthreads();
  const int t = threadIdx.y * kTileX + threadIdx.x;
  const long long c = blockIdx.x * (long long)(kTileX * VEC) + t;
  if (t >= kTileX * VEC || c >= a.c) return;
  float2 m = tile[0][t];
  for (int r = 1; r < kTileY; ++r) m = make_float2(m.x + tile[r][t].x, m.y + tile[r][t].y);
  part[c * g.slices + k] = m;
}

// One warp per channel adds its slices' sums, writes dgamma/dbeta and keeps the sums for dx.
__global__ void finalize(bn::BwdArgs a, const float2* part, unsigned slices, float2* sums) {
  const long long c = (blockIdx.x * (long long)blockDim.x + threadIdx.x) >> 5;
  const unsigned lane = threadIdx.x & 31;
  if (c >= a.c) return;
  float2 s = make_float2(0.0f, 0.0f);
  for (unsigned k = lane; k < slices; k += 32) s = make_float2(s.x + part[c * slices + k].x, s.y + part[c * slices + k].y);
  s = make_float2(nb::dev::warp_sum(s.x), nb::dev::warp_sum(s.y));
  if (lane != 0) return;
  sums[c] = s;
  commit_bwd_sums(a, c, s);
}

// 2d dx pass: the whole tensor in address order (flat_pass.cuh).
template <int VEC>
__global__ void __launch_bounds__(kFlatThreads) dx_flat(bn::BwdArgs a, FlatGeom g, const float2* sums, float count) {
  const float* const src[2] = {a.x, a.dy};
  flat_channel_map<VEC, 2>(
      g, src, a.dx, [&](unsigned c) { return BwdAffine(a, c, sums[c], count); },
      [](const BwdAffine& f, const Loaded<VEC, 2>& l, float(&dx)[VEC]) { f.apply<VEC>(l.v[0], l.v[1], dx); });
}

template <int VEC>
__global__ void __launch_bounds__(kTileX* kTileY) dx_rows(bn::BwdArgs a, ChannelGeom g, const float2* sums, float count) {
  const long long cv = (gridDim.x - 1LL - blockIdx.x) * kTileX + threadIdx.x;
  const unsigned k = gridDim.y - 1 - blockIdx.y;
  if (cv >= g.c_count) return;
  BwdAffine f[VEC];
  for (int e = 0; e < VEC; ++e) f[e] = BwdAffine(a, cv * VEC + e, sums[cv * VEC + e], count);
  const float* const src[2] = {a.x, a.dy};
  for_channel_range<VEC, 2>(g, cv, g.begin(k), g.begin(k + 1), threadIdx.y, kTileY, src,
                            [&](long long off, const Loaded<VEC, 2>& l) {
                              float dx[VEC];
#pragma unroll
                              for (int e = 0; e < VEC; ++e) dx[e] = f[e](l.v[0][e], l.v[1][e]);
                              store_vec<VEC>(a.dx, off, dx);
                            });
}

// 16-byte loads where the shape and x, dy and dx allow them.
SplitPlan plan_of(const bn::BwdArgs& a) {
  return split_plan(a.n, a.c, a.hw, SplitStyle::tuned, nb::dev::aligned16(a.x, a.dy) && nb::dev::aligned16(a.dx));
}

// Room for the partials of either plan the problem can get (aligned tensors or not).
std::size_t workspace(const Problem& p) {
  const bn::Shape s = bn::shape_of(p);
  return std::size_t(s.c) * (max_split_slices(s.n, s.c, s.hw, SplitStyle::tuned) + 1) * sizeof(float2);
}

template <int VEC>
void launch_passes(const bn::BwdArgs& a, const SplitPlan& p, float2* part, cudaStream_t stream) {
  float2* sums = part + a.c * p.slices;
  const float count = float(a.n * a.hw);
  const dim3 tile(kTileX, kTileY);
  if (p.rows)
    partials_rows<VEC><<<p.grid, tile, 0, stream>>>(a, p.geom, part);
  else
    partials_2d<VEC><<<p.grid, kThreads, 0, stream>>>(a, p.geom, part);
  NB_CHECK_LAUNCH();
  finalize<<<unsigned(nb::dev::ceil_div(a.c * 32, 256)), 256, 0, stream>>>(a, part, p.slices, sums);
  NB_CHECK_LAUNCH();
  if (p.rows) {
    dx_rows<VEC><<<p.grid, tile, 0, stream>>>(a, p.geom, sums, count);
  } else {
    const FlatGeom g = flat_geom(a.n, a.c, a.hw, VEC);
    dx_flat<VEC><<<flat_blocks(g), kFlatThreads, 0, stream>>>(a, g, sums, count);
  }
  NB_CHECK_LAUNCH();
}

void launch(const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t stream) {
  const bn::BwdArgs a = bwd_args(p, t);
  const SplitPlan plan = plan_of(a);
  if (plan.vec == 4)
    launch_passes<4>(a, plan, static_cast<float2*>(ws), stream);
  else
    launch_passes<1>(a, plan, static_cast<float2*>(ws), stream);
}

}  // namespace

std::unique_ptr<Variant> make_split_variant() {
  return make_kernel_variant({
      "split", "fused", "partial sums over (channel, slice) or (channel-tile, row-slice) blocks, float4, dx in address order (2d)",
      launch, nullptr, workspace, {}});
}

}  // namespace nb::batchnorm_bwd
