#pragma once
// Programmatic dependent launch (sm_90+): a kernel launched with
// cudaLaunchAttributeProgrammaticStreamSerialization may be scheduled before the kernel ahead of
// it on the stream has finished, once every CTA of that kernel has called launch_dependents() (or
// exited). grid_dependency_wait() then blocks until that kernel has completed and its writes are
// visible. Both are no-ops in an ordinary launch and before sm_90, so a kernel may call them
// whichever way it is launched.
#include <cuda_runtime.h>

#include <utility>

#include "harness/cuda_check.hpp"

namespace nb::dev {

__device__ __forceinline__ void grid_dependency_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
}

__device__ __forceinline__ void launch_dependents() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
}

// Launches kernel<<<grid, block, 0, stream>>>(args...) as a programmatic dependent of the work
// ahead of it on the stream (an ordinary launch on devices before sm_90).
template <class... Params, class... Args>
void launch_dependent(void (*kernel)(Params...), dim3 grid, dim3 block, cudaStream_t stream, Args&&... args) {
  int device = 0, major = 0;
  NB_CUDA_CHECK(cudaGetDevice(&device));
  NB_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  cudaLaunchAttribute dependent = {};
  dependent.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  dependent.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = grid, cfg.blockDim = block, cfg.stream = stream;
  cfg.attrs = &dependent, cfg.numAttrs = major >= 9 ? 1 : 0;
  NB_CUDA_CHECK(cudaLaunchKernelEx(&cfg, kernel, std::forward<Args>(args)...));
}

}  // namespace nb::dev
