#pragma once
// Where a block of 4_register_row.cu or staged_rows.cu works: the rows it visits and the packs of
// each row it owns (one part of its cluster), and the launch of a grid of clusters.
#include <cuda_runtime.h>

#include "harness/cuda_check.hpp"
#include "kernels/primitives/cluster_launch.hpp"
#include "kernels/rows/row_plan.hpp"

namespace nb::rows {

struct RowGeometry {
  long long rows, n, packs, packs_per_part;
  int parts;
  float inv_n, eps;

  static RowGeometry of(const RowPlan& plan, long long rows, long long n, float eps) {
    return {rows, n, plan.packs, plan.packs_per_part, plan.parts, 1.0f / static_cast<float>(n), eps};
  }
};

// The packs [first, end) of one row that this block (one part of its cluster) owns.
struct PartRange {
  long long first, end;

  __device__ int count() const { return static_cast<int>(end - first); }
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

// A launch of `clusters` clusters of plan.parts blocks (plan.lanes x plan.rows_per_block
// threads) on `stream`, with `smem` bytes of dynamic shared memory per block.
inline cudaLaunchConfig_t cluster_config(const RowPlan& plan, long long clusters, std::size_t smem,
                                         cudaStream_t stream, cudaLaunchAttribute* cluster) {
  // Single-block rows in registers launch as plain grids; staged grids are sized by the
  // occupancy of their clusters, even of one block.
  return cluster_launch_config(dim3(static_cast<unsigned>(clusters * plan.parts)),
                               dim3(plan.lanes, plan.rows_per_block), smem, stream,
                               static_cast<unsigned>(plan.parts), plan.parts > 1 || plan.staged(), *cluster);
}

template <class Kernel, class... Args>
void launch_clusters(Kernel kernel, const RowPlan& plan, long long clusters, std::size_t smem, cudaStream_t stream,
                     Args... args) {
  cudaLaunchAttribute cluster;
  const cudaLaunchConfig_t config = cluster_config(plan, clusters, smem, stream, &cluster);
  NB_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, args...));
  NB_CHECK_LAUNCH();
}

}  // namespace nb::rows
