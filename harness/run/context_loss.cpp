#include "harness/run/context_loss.hpp"

#include <cuda_runtime.h>

namespace nb {

std::optional<std::string> cuda_context_lost() {
  const cudaError_t sync = cudaDeviceSynchronize();
  if (sync == cudaSuccess) {
    cudaGetLastError();  // a non-sticky error (out of memory) is cleared and forgotten
    return std::nullopt;
  }
  // Sticky errors come back from every later call; a non-sticky one does not.
  const cudaError_t again = cudaDeviceSynchronize();
  if (again == cudaSuccess) {
    cudaGetLastError();
    return std::nullopt;
  }
  return std::string(cudaGetErrorName(again)) + ": " + cudaGetErrorString(again);
}

}  // namespace nb
