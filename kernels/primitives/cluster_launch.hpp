#pragma once
// The configuration of a cudaLaunchKernelEx launch in thread-block clusters of `cluster_size`
// blocks along x: `grid` blocks of `block` threads with `smem` bytes of dynamic shared memory on
// `stream`. The cluster attribute is written into the caller's `attribute`, which must outlive the
// launch; with_attribute false launches a plain grid (no cluster). The occupancy queries take the
// same configuration (cudaOccupancyMaxActiveClusters, nb::resident_clusters).
#include <cuda_runtime.h>

#include <cstddef>

namespace nb {

inline cudaLaunchConfig_t cluster_launch_config(dim3 grid, dim3 block, std::size_t smem, cudaStream_t stream,
                                                unsigned cluster_size, bool with_attribute,
                                                cudaLaunchAttribute& attribute) {
  cudaLaunchConfig_t config = {};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = smem;
  config.stream = stream;
  attribute = {};
  attribute.id = cudaLaunchAttributeClusterDimension;
  attribute.val.clusterDim.x = cluster_size;
  attribute.val.clusterDim.y = 1;
  attribute.val.clusterDim.z = 1;
  config.attrs = &attribute;
  config.numAttrs = with_attribute ? 1 : 0;
  return config;
}

}  // namespace nb
