#include "harness/device/persisting_l2.hpp"

#include <cstddef>

#include "harness/cuda_check.hpp"

namespace nb {
namespace {

// The device's persisting limit, 0 where the device has no such limit (cudaErrorUnsupportedLimit).
std::size_t persisting_limit() {
  std::size_t bytes = 0;
  if (cudaDeviceGetLimit(&bytes, cudaLimitPersistingL2CacheSize) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return bytes;
}

// Bytes of the stream's access-policy window that hit as persisting, 0 when none.
std::size_t persisting_window(cudaStream_t stream) {
  cudaStreamAttrValue value{};
  if (cudaStreamGetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &value) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  const cudaAccessPolicyWindow& w = value.accessPolicyWindow;
  const bool persists = w.hitProp == cudaAccessPropertyPersisting || w.missProp == cudaAccessPropertyPersisting;
  return persists && w.hitRatio > 0 ? w.num_bytes : 0;
}

}  // namespace

void reset_persisting_l2(cudaStream_t stream) {
  cudaStreamAttrValue cleared{};
  cleared.accessPolicyWindow.hitProp = cudaAccessPropertyNormal;
  cleared.accessPolicyWindow.missProp = cudaAccessPropertyNormal;
  // Each may be unsupported on the device (no persisting L2): then there is nothing to reset.
  if (cudaStreamSetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &cleared) != cudaSuccess) cudaGetLastError();
  if (cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0) != cudaSuccess) cudaGetLastError();
  if (cudaCtxResetPersistingL2Cache() != cudaSuccess) cudaGetLastError();
}

std::string find_and_reset_persisting_l2(cudaStream_t stream) {
  const std::size_t limit = persisting_limit(), window = persisting_window(stream);
  std::string found;
  if (limit > 0) found = "persisting L2 limit " + std::to_string(limit) + " bytes";
  if (window > 0)
    found += (found.empty() ? "" : "; ") + std::string("access-policy window of ") + std::to_string(window) +
             " bytes with persisting hits on the stream";
  if (!found.empty()) reset_persisting_l2(stream);
  return found;
}

}  // namespace nb
