// The grid-level Welford shared by 4_welford.cu and 5_split.cu: blocks write per-(channel, slice)
// partial Welford statistics, one warp per channel Chan-merges them and commits the channel's
// statistics, then a second pass over x writes y (2d: the whole tensor in address order; rows:
// channel tiles in reverse order). Three kernels on one stream.
#include "harness/cuda_check.hpp"
#include "kernels/batchnorm_common/flat_pass.cuh"
#include "kernels/batchnorm_train/split.hpp"

namespace nb::bn_train::split {
namespace {

// 2d: block b folds the part of a channel block_work() gives it into one partial.
template <int VEC>
__global__ void __launch_bounds__(kThreads) partials_2d(bn::FwdArgs a, ChannelGeom g, Welford* part) {
  __shared__ Welford scratch[32];
  const BlockWork work = block_work(g, blockIdx.x);
  ShiftedWelford sw{channel_pivot(a.x, work.c, a.hw), {}};
  const float* const src[1] = {a.x};
  for_channel_range<VEC, 1>(g, work.c, work.j0, work.j1, threadIdx.x, blockDim.x, src,
                            [&](long long, const Loaded<VEC, 1>& l) { sw.add<VEC>(l.v[0]); });
  const Welford w = block_merge(sw.w, scratch);
  if (threadIdx.x == 0) part[work.part] = w;
}

// Rows: thread (x, y) owns VEC consecutive channels and every 8th row of slice blockIdx.y; the
// 8 row-threads of each channel merge through shared memory into part[c*slices + k].
template <int VEC>
__global__ void __launch_bounds__(kTileX* kTileY) partials_rows(bn::FwdArgs a, ChannelGeom g, Welford* part) {
  __shared__ Welford tile[kTileY][kTileX * VEC];
  const long long cv = blockIdx.x * (long long)kTileX + threadIdx.x;
  const unsigned k = blockIdx.y;
  Welford w[VEC];
  if (cv < g.c_count) {
    float pivot[VEC];
    for (int e = 0; e < VEC; ++e) pivot[e] = a.x[cv * VEC + e];
    const float* const src[1] = {a.x};
    for_channel_range<VEC, 1>(g, cv, g.begin(k), g.begin(k + 1), threadIdx.y, kTileY, src,
                              [&](long long, const Loaded<VEC, 1>& l) {
#pragma unroll
                                for (int e = 0; e < VEC; ++e) w[e].add(l.v[0][e] - pivot[e]);
                              });
  }
  for (int e = 0; e < VEC; ++e) tile[threadIdx.y][threadIdx.x * VEC + e] = w[e];
  __syncthreads();
  const int t = threadIdx.y * kTileX + threadIdx.x;
  const long long c = blockIdx.x * (long long)(kTileX * VEC) + t;
  if (t >= kTileX * VEC || c >= a.c) return;
  Welford m = tile[0][t];
  for (int r = 1; r < kTileY; ++r) m.merge(tile[r][t]);
  part[c * g.slices + k] = m;
}

// One warp per channel: Chan-merges its slices and commits mean, invstd and the running stats.
__global__ void finalize(bn::FwdArgs a, const Welford* part, unsigned slices) {
  const long long c = (blockIdx.x * (long long)blockDim.x + threadIdx.x) >> 5;
  const unsigned lane = threadIdx.x & 31;
  if (c >= a.c) return;  // whole warps leave together
  Welford w;
  for (unsigned k = lane; k < slices; k += 32) w.merge(part[c * slices + k]);
  w = warp_merge(w);
  if (lane == 0) commit_stats(a, c, channel_pivot(a.x, c, a.hw) + w.mean, w.variance_biased());
}

// 2d second pass: the whole tensor in address order (flat_pass.cuh).
template <int VEC>
__global__ void __launch_bounds__(kFlatThreads) normalize_flat(bn::FwdArgs a, FlatGeom g) {
  const float* const src[1] = {a.x};
  flat_channel_map<VEC, 1>(
      g, src, a.y, [&](unsigned c) { return Affine(a, c, make_float2(a.save_mean[c], a.save_invstd[c])); },
      [](const Affine& f, const Loaded<VEC, 1>& l, float(&y)[VEC]) { f.apply<VEC>(l.v[0], y); });
}

// Rows second pass, tiles in reverse order.
template <int VEC>
__global__ void __launch_bounds__(kTileX* kTileY) normalize_rows(bn::FwdArgs a, ChannelGeom g) {
  const long long cv = (gridDim.x - 1LL - blockIdx.x) * kTileX + threadIdx.x;
  const unsigned k = gridDim.y - 1 - blockIdx.y;
  if (cv >= g.c_count) return;
  Affine f[VEC];
  for (int e = 0; e < VEC; ++e) {
    const long long c = cv * VEC + e;
    f[e] = Affine(a, c, make_float2(a.save_mean[c], a.save_invstd[c]));
  }
  const float* const src[1] = {a.x};
  for_channel_range<VEC, 1>(g, cv, g.begin(k), g.begin(k + 1), threadIdx.y, kTileY, src,
                            [&](long long off, const Loaded<VEC, 1>& l) {
                              float y[VEC];
#pragma unroll
                              for (int e = 0; e < VEC; ++e) y[e] = f[e](l.v[0][e]);
                              store_vec<VEC>(a.y, off, y);
                            });
}

template <int VEC>
void launch_passes(const bn::FwdArgs& a, const SplitPlan& p, Welford* part, cudaStream_t stream) {
  const dim3 tile(kTileX, kTileY);
  if (p.rows)
    partials_rows<VEC><<<p.grid, tile, 0, stream>>>(a, p.geom, part);
  else
    partials_2d<VEC><<<p.grid, kThreads, 0, stream>>>(a, p.geom, part);
  NB_CHECK_LAUNCH();
  finalize<<<unsigned(nb::dev::ceil_div(a.c * 32, 256)), 256, 0, stream>>>(a, part, p.slices);
  NB_CHECK_LAUNCH();
  if (p.rows) {
    normalize_rows<VEC><<<p.grid, tile, 0, stream>>>(a, p.geom);
  } else {
    const FlatGeom g = flat_geom(a.n, a.c, a.hw, VEC);
    normalize_flat<VEC><<<flat_blocks(g), kFlatThreads, 0, stream>>>(a, g);
  }
  NB_CHECK_LAUNCH();
}

}  // namespace

std::size_t workspace_bytes(const Problem& p, SplitStyle style) {
  const bn::Shape s = bn::shape_of(p);
  return std::size_t(s.c) * split_plan(s.n, s.c, s.hw, style).slices * sizeof(Welford);
}

void launch(const bn::FwdArgs& a, const SplitPlan& p, void* workspace, cudaStream_t stream) {
  Welford* part = static_cast<Welford*>(workspace);
  if (p.vec == 4)
    launch_passes<4>(a, p, part, stream);
  else
    launch_passes<1>(a, p, part, stream);
}

}  // namespace nb::bn_train::split
