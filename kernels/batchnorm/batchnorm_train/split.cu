// The grid-level Welford shared by 4_welford.cu, 5_split.cu and 7_split_tail.cu: blocks write
// per-(channel, slice) partial Welford statistics, one warp (or block) per channel Chan-merges
// them and commits the channel's statistics, then a second pass over x writes y (2d: the whole
// tensor in address order, or from its end down; rows: channel tiles in reverse order). Three
// kernels on one stream; PassChain says how tightly they follow one another.
#include "kernels/batchnorm/batchnorm_train/split.hpp"

#include "harness/cuda_check.hpp"
#include "kernels/batchnorm/flat_pass.cuh"
#include "kernels/primitives/alignment.cuh"
#include "kernels/primitives/grid_dependency.cuh"

namespace nb::batchnorm_train::split {
namespace {

// 2d: block b folds the part of a channel block_work() gives it into one partial.
template <int VEC>
__global__ void __launch_bounds__(kThreads) partials_2d(bn::FwdArgs a, ChannelGeom g, Welford* part) {
  __shared__ Welford scratch[32];
  nb::dev::launch_dependents();  // a dependent finalize may be scheduled once the last block runs
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
  nb::dev::launch_dependents();
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

// LANES threads per channel (a warp, or a 256-thread block): Chan-merge its slices in a fixed
// order and commit mean, invstd and the running stats. 256-thread blocks.
template <int LANES>
__global__ void finalize(bn::FwdArgs a, const Welford* part, unsigned slices) {
  nb::dev::grid_dependency_wait();  // the partials are complete
  nb::dev::launch_dependents();
  const long long c = (blockIdx.x * (long long)blockDim.x + threadIdx.x) / LANES;
  const unsigned lane = threadIdx.x % LANES;
  if (LANES == 32 && c >= a.c) return;  // whole warps leave together
  Welford w;
  for (unsigned k = lane; k < slices; k += LANES) w.merge(part[c * slices + k]);
  if constexpr (LANES == 32) {
    w = warp_merge(w);
  } else {
    __shared__ Welford scratch[32];
    w = block_merge(w, scratch);
  }
  if (lane == 0) commit_stats(a, c, channel_pivot(a.x, c, a.hw) + w.mean, w.variance_biased());
}

// 2d second pass: the whole tensor in address order, or from its end down (flat_pass.cuh).
template <int VEC, bool TAIL_FIRST>
__global__ void __launch_bounds__(kFlatThreads) normalize_flat(bn::FwdArgs a, FlatGeom g) {
  nb::dev::grid_dependency_wait();  // the statistics are committed
  const float* const src[1] = {a.x};
  flat_channel_map<VEC, 1, TAIL_FIRST>(
      g, src, a.y, [&](unsigned c) { return Affine(a, c, make_float2(a.save_mean[c], a.save_invstd[c])); },
      [](const Affine& f, const Loaded<VEC, 1>& l, float(&y)[VEC]) { f.apply<VEC>(l.v[0], y); });
}

// Rows second pass, tiles in reverse order.
template <int VEC>
__global__ void __launch_bounds__(kTileX* kTileY) normalize_rows(bn::FwdArgs a, ChannelGeom g) {
  nb::dev::grid_dependency_wait();
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
void launch_passes(const bn::FwdArgs& a, const SplitPlan& p, Welford* part, cudaStream_t stream,
                   const PassChain& chain) {
  // The finalize and y pass: ordinary launches, or programmatic dependents of the kernel ahead.
  auto then = [&](auto kernel, dim3 grid, dim3 block, auto... args) {
    if (chain.dependent_launches)
      nb::dev::launch_dependent(kernel, grid, block, stream, args...);
    else
      kernel<<<grid, block, 0, stream>>>(args...);
    NB_CHECK_LAUNCH();
  };
  const dim3 tile(kTileX, kTileY);
  if (p.rows)
    partials_rows<VEC><<<p.grid, tile, 0, stream>>>(a, p.geom, part);
  else
    partials_2d<VEC><<<p.grid, kThreads, 0, stream>>>(a, p.geom, part);
  NB_CHECK_LAUNCH();
  if (chain.block_finalize && p.slices >= kThreads)
    then(finalize<kThreads>, dim3(unsigned(a.c)), dim3(kThreads), a, static_cast<const Welford*>(part), p.slices);
  else
    then(finalize<32>, dim3(unsigned(nb::dev::ceil_div(a.c * 32, 256))), dim3(256), a,
         static_cast<const Welford*>(part), p.slices);
  if (p.rows) {
    then(normalize_rows<VEC>, p.grid, tile, a, p.geom);
  } else {
    const FlatGeom g = flat_geom(a.n, a.c, a.hw, VEC);
    // Tail first only after a statistics pass in address order (run order), whose tail is in L2.
    if (chain.tail_first && p.geom.pieces > 0)
      then(normalize_flat<VEC, true>, dim3(flat_blocks(g)), dim3(kFlatThreads), a, g);
    else
      then(normalize_flat<VEC, false>, dim3(flat_blocks(g)), dim3(kFlatThreads), a, g);
  }
}

}  // namespace

std::size_t workspace_bytes(const Problem& p, SplitStyle style) {
  const bn::Shape s = bn::shape_of(p);
  return std::size_t(s.c) * max_split_slices(s.n, s.c, s.hw, style) * sizeof(Welford);
}

SplitPlan plan_for(const bn::FwdArgs& a, SplitStyle style) {
  return split_plan(a.n, a.c, a.hw, style, nb::dev::aligned16(a.x, a.y));
}

void launch(const bn::FwdArgs& a, const SplitPlan& p, void* workspace, cudaStream_t stream, const PassChain& chain) {
  Welford* part = static_cast<Welford*>(workspace);
  if (p.vec == 4)
    launch_passes<4>(a, p, part, stream, chain);
  else
    launch_passes<1>(a, p, part, stream, chain);
}

}  // namespace nb::batchnorm_train::split
