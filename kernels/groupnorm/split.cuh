#pragma once
// The (group, slice) split shared by the warp and welford variants: kernel 1 reduces each slice
// of a group to one partial statistic S in the workspace; kernel 2 merges its group's partials
// (every block redundantly: there are at most a few dozen) and normalizes its slice.
// x is read twice (2 reads + 1 write); any group size spreads over many blocks.
#include "harness/cuda_check.hpp"
#include "kernels/groupnorm/common.cuh"

namespace nb::groupnorm {

struct SplitPlan {
  long long chunk;   // elements per slice, a multiple of 4 unless it is the whole group
  long long slices;  // per group
};

inline SplitPlan split_plan(const Shape& s) {
  constexpr long long kChunk = 32768;  // 128 KB: 64 slices of an 8 MB group, 57344 blocks at 112x64x512x512
  const long long ge = s.group_elements();
  const long long chunk = ge <= kChunk ? ge : kChunk;
  return {chunk, dev::ceil_div(ge, chunk)};
}

constexpr int kSplitThreads = 256;

template <class S>
__global__ void __launch_bounds__(kSplitThreads) split_partials(Args a, SplitPlan sp, S* partials) {
  __shared__ S scratch[32];
  const long long grp = blockIdx.x / sp.slices, b = blockIdx.x % sp.slices * sp.chunk;
  const long long e = b + sp.chunk < a.group_elems ? b + sp.chunk : a.group_elems;
  S s;
  accumulate(s, a.x + grp * a.group_elems + b, e - b, threadIdx.x, blockDim.x);
  s = block_merge(s, scratch);
  if (threadIdx.x == 0) partials[blockIdx.x] = s;
}

template <class S>
__global__ void __launch_bounds__(kSplitThreads) split_normalize(Args a, SplitPlan sp, const S* partials) {
  __shared__ S scratch[32];
  const long long grp = blockIdx.x / sp.slices, b = blockIdx.x % sp.slices * sp.chunk;
  const long long e = b + sp.chunk < a.group_elems ? b + sp.chunk : a.group_elems;
  S s;
  for (long long i = threadIdx.x; i < sp.slices; i += blockDim.x) s.merge(partials[grp * sp.slices + i]);
  s = block_merge(s, scratch);
  const float mean = mean_of(s);
  normalize_span(a, grp, b, e, a.x + grp * a.group_elems + b, mean, invstd_of(mean, variance_of(s), a.eps), threadIdx.x,
                 blockDim.x);
}

template <class S>
void launch_split(const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t stream) {
  const Args a = make_args(p, t);
  const SplitPlan sp = split_plan(shape_of(p));
  const unsigned blocks = unsigned(a.groups * sp.slices);
  S* partials = static_cast<S*>(ws);
  split_partials<S><<<blocks, kSplitThreads, 0, stream>>>(a, sp, partials);
  NB_CHECK_LAUNCH();
  split_normalize<S><<<blocks, kSplitThreads, 0, stream>>>(a, sp, partials);
  NB_CHECK_LAUNCH();
}

template <class S>
std::size_t split_workspace(const Problem& p) {
  const Shape s = shape_of(p);
  return sizeof(S) * std::size_t(s.groups() * split_plan(s).slices);
}

}  // namespace nb::groupnorm
