// Register row: a row is held in registers (up to 8 16-byte packs per thread when N % 4 == 0,
// else 16 floats) from the reduction to the write, so x is read from DRAM once. Short rows share a
// block in power-of-two lane groups; long rows split over a thread-block cluster of up to 8
// blocks that add their sums through distributed shared memory (N <= 262144). Longer rows
// stream their part twice. Rescales when x^2 overflows (claims `wide`).
#include <cstdint>
#include <stdexcept>

#include "harness/cuda_check.hpp"
#include "kernels/common/alignment.cuh"
#include "kernels/rmsnorm_common/grid.hpp"
#include "kernels/rmsnorm_rows/row_plan.hpp"
#include "kernels/rmsnorm_rows/row_reducers.cuh"
#include "kernels/rmsnorm_rows/spec.hpp"

namespace nb::rmsnorm_rows {
namespace {

struct RowGeometry {
  long long rows, n, packs, packs_per_part;
  int parts;
  float inv_n, eps;
};

// The packs [first, end) of one row that this block (one part of its cluster) owns.
struct PartRange {
  long long first, end;
};

__device__ __forceinline__ PartRange part_range(const RowGeometry& g) {
  const long long first = (blockIdx.x % g.parts) * g.packs_per_part;
  return {first, first + g.packs_per_part < g.packs ? first + g.packs_per_part : g.packs};
}

// A block visits blockDim.y consecutive rows per step of a grid-stride loop; the blocks of a
// cluster visit the same rows.
__device__ __forceinline__ long long first_row(const RowGeometry& g) {
  return (blockIdx.x / g.parts) * static_cast<long long>(blockDim.y);
}
__device__ __forceinline__ long long row_step(const RowGeometry& g) {
  return (gridDim.x / g.parts) * static_cast<long long>(blockDim.y);
}

// y = v * inv * w for one pack; y and w point at the pack.
template <int VEC>
__device__ __forceinline__ void store_weighted(float* y, const float* w, const rms::Pack<VEC>& v, float inv) {
  const rms::Pack<VEC> wp = rms::load_pack<VEC>(w);
  rms::Pack<VEC> out;
#pragma unroll
  for (int i = 0; i < VEC; ++i) out.v[i] = v.v[i] * inv * wp.v[i];
  rms::store_pack<VEC>(y, out);
}

template <int VEC, int PPT, class Reducer>
__global__ void __launch_bounds__(kMaxLanes)
    rmsnorm_rows_register(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ y,
                          RowGeometry g) {
  __shared__ float scratch[32];
  __shared__ float slot;
  const Reducer reduce(scratch, &slot, g.parts);
  const PartRange part = part_range(g);
  const int owned = static_cast<int>(part.end - part.first) - threadIdx.x;  // > k*blockDim.x: pack k is mine
  const long long first = (part.first + threadIdx.x) * VEC;                   // my first float in the row
  const int stride = blockDim.x * VEC;
  for (long long row0 = first_row(g); row0 < g.rows; row0 += row_step(g)) {
    const long long row = row0 + threadIdx.y;
    const bool active = row < g.rows;  // rows past the end still take part in the shuffles
    const float* xr = x + row * g.n + first;
    rms::Pack<VEC> v[PPT];
#pragma unroll
    for (int k = 0; k < PPT; ++k)
      v[k] = active && k * static_cast<int>(blockDim.x) < owned ? rms::load_pack<VEC>(xr + k * stride)
                                                              : rms::zero_pack<VEC>();
    const auto each_pack = [&](auto f) {
#pragma unroll
      for (int k = 0; k < PPT; ++k) f(v[k]);
    };
    const float inv = row_inv_rms<VEC>(each_pack, reduce, g.inv_n, g.eps);
#pragma unroll
    for (int k = 0; k < PPT; ++k)
      if (active && k * static_cast<int>(blockDim.x) < owned)
        store_weighted<VEC>(y + row * g.n + first + k * stride, w + first + k * stride, v[k], inv);
  }
}

// Rows too long for the registers of a cluster: each block streams its part twice.
template <int VEC>
__global__ void __launch_bounds__(kMaxLanes)
    rmsnorm_rows_streamed(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ y,
                          RowGeometry g) {
  __shared__ float scratch[32];
  __shared__ float slot;
  const BlockReducer reduce(scratch, &slot, g.parts);
  const PartRange part = part_range(g);
  for (long long row = first_row(g); row < g.rows; row += row_step(g)) {
    const float* xr = x + row * g.n;
    const auto each_pack = [&](auto f) {
      for (long long pack = part.first + threadIdx.x; pack < part.end; pack += blockDim.x)
        f(rms::load_pack<VEC>(xr + pack * VEC));
    };
    const float inv = row_inv_rms<VEC>(each_pack, reduce, g.inv_n, g.eps);
    for (long long pack = part.first + threadIdx.x; pack < part.end; pack += blockDim.x)
      store_weighted<VEC>(y + row * g.n + pack * VEC, w + pack * VEC, rms::load_pack<VEC>(xr + pack * VEC), inv);
  }
}

// Launches on `stream`, as a cluster of plan.parts blocks per row when that is more than one.
template <class Kernel>
void launch_rows(Kernel kernel, const RowPlan& plan, const RowGeometry& g, const float* x, const float* w, float* y,
                 cudaStream_t stream) {
  const long long row_blocks = rms::ceil_div_ll(g.rows, plan.rows_per_block);
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(rms::grid_blocks(row_blocks, rms::kMaxGridX / plan.parts) * plan.parts);
  config.blockDim = dim3(plan.lanes, plan.rows_per_block);
  config.stream = stream;
  cudaLaunchAttribute cluster = {};
  cluster.id = cudaLaunchAttributeClusterDimension;
  cluster.val.clusterDim.x = static_cast<unsigned>(plan.parts);
  cluster.val.clusterDim.y = 1;
  cluster.val.clusterDim.z = 1;
  config.attrs = &cluster;
  config.numAttrs = plan.parts > 1 ? 1 : 0;
  NB_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, x, w, y, g));
  NB_CHECK_LAUNCH();
}

// The kernel instance for plan.packs_per_thread: PPT = 1, 2, 4, ... within max_floats_per_thread.
template <int VEC, class Reducer, int PPT = 1>
void launch_register(const RowPlan& plan, const RowGeometry& g, const float* x, const float* w, float* y,
                     cudaStream_t stream) {
  if constexpr (VEC * PPT <= max_floats_per_thread(VEC)) {
    if (plan.packs_per_thread == PPT)
      return launch_rows(rmsnorm_rows_register<VEC, PPT, Reducer>, plan, g, x, w, y, stream);
    return launch_register<VEC, Reducer, PPT * 2>(plan, g, x, w, y, stream);
  } else {
    throw std::logic_error("register_row: no kernel for this row plan");
  }
}

template <int VEC>
void launch_plan(const RowPlan& plan, const Shape& s, const float* x, const float* w, float* y, cudaStream_t stream) {
  const RowGeometry g{s.m, s.n, plan.packs, plan.packs_per_part, plan.parts, 1.0f / static_cast<float>(s.n), s.eps};
  if (plan.streamed()) launch_rows(rmsnorm_rows_streamed<VEC>, plan, g, x, w, y, stream);
  else if (plan.lane_groups()) launch_register<VEC, LaneGroupReducer>(plan, g, x, w, y, stream);
  else launch_register<VEC, BlockReducer>(plan, g, x, w, y, stream);
}

void launch(const Problem& problem, const DeviceTensors& t, void*, cudaStream_t stream) {
  const Shape s = Shape::of(problem);
  const float *x = t.in(X), *w = t.in(W);
  float* y = t.out(Y);
  // Packs of 4 need every row to start on 16 bytes: N % 4 == 0 and aligned buffers.
  const bool packs_of_4 = s.n % 4 == 0 && dev::aligned16(x) && dev::aligned16(w) && dev::aligned16(y);
  const RowPlan plan = plan_register_row(s.n, packs_of_4);
  if (plan.vec == 4) launch_plan<4>(plan, s, x, w, y, stream);
  else launch_plan<1>(plan, s, x, w, y, stream);
}

}  // namespace

std::unique_ptr<Variant> make_register_row_variant() {
  return make_kernel_variant(
      {"register_row", "register",
       "row held in registers (<= 8 16-byte packs per thread) between reduction and write, x read once; "
       "short rows share a block, long rows split over a cluster of <= 8 blocks (DSMEM sum); longer rows stream twice",
       launch, nullptr, nullptr, {Distribution::wide}});
}

}  // namespace nb::rmsnorm_rows
