#include "kernels/primitives/cluster_occupancy.hpp"

#include <map>
#include <mutex>
#include <tuple>

namespace nb {
namespace {

int cluster_size(const cudaLaunchConfig_t& config) {
  for (unsigned i = 0; i < config.numAttrs; ++i)
    if (config.attrs[i].id == cudaLaunchAttributeClusterDimension)
      return static_cast<int>(config.attrs[i].val.clusterDim.x * config.attrs[i].val.clusterDim.y *
                              config.attrs[i].val.clusterDim.z);
  return 1;
}

}  // namespace

int resident_clusters(const void* kernel, const cudaLaunchConfig_t& config) {
  using Key = std::tuple<int, const void*, unsigned, unsigned, std::size_t, int>;
  static std::mutex mutex;
  static std::map<Key, int> known;
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  const Key key{device, kernel, config.blockDim.x, config.blockDim.y, config.dynamicSmemBytes, cluster_size(config)};
  const std::lock_guard<std::mutex> lock(mutex);
  if (const auto it = known.find(key); it != known.end()) return it->second;
  int clusters = 0;
  if (cudaOccupancyMaxActiveClusters(&clusters, kernel, &config) != cudaSuccess) {
    cudaGetLastError();  // a refused configuration is an answer (none fit), not a sticky error
    clusters = 0;
  }
  return known[key] = clusters;
}

}  // namespace nb
