#pragma once
// How many clusters of a launch can be resident at once (cudaOccupancyMaxActiveClusters), asked of
// the driver once per device, kernel and launch shape and remembered: a persistent grid sizes
// itself in launch(), inside the timed region. The caller has set the kernel's shared-memory
// attributes first.
#include <cuda_runtime.h>

namespace nb {

// 0 when no cluster fits (or the driver refuses the configuration).
int resident_clusters(const void* kernel, const cudaLaunchConfig_t& config);

}  // namespace nb
