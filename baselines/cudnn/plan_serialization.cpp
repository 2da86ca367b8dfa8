// Execution plans as bytes and back (plan_serialization.hpp).
#include "baselines/cudnn/plan_serialization.hpp"

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "harness/cuda_check.hpp"
#include "harness/device/nvml_monitor.hpp"

namespace nb::cudnn_backend {

std::string serialize_plan(const Descriptor& plan) {
  int64_t bytes = 0;
  NB_CUDNN_SUPPORTED(cudnnBackendGetAttribute(plan.get(), CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION,
                                              CUDNN_TYPE_CHAR, 0, &bytes, nullptr));
  std::vector<char> text(std::size_t(bytes > 0 ? bytes : 0));
  int64_t written = 0;
  NB_CUDNN_SUPPORTED(cudnnBackendGetAttribute(plan.get(), CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION,
                                              CUDNN_TYPE_CHAR, bytes, &written, text.data()));
  if (written <= 0 || written > bytes)
    throw Unsupported("cuDNN gave " + std::to_string(written) + " bytes of a " + std::to_string(bytes) +
                      "-byte serialized plan");
  return std::string(text.data(), std::size_t(written));
}

std::unique_ptr<Descriptor> deserialize_plan(cudnnHandle_t handle, const std::string& bytes) {
  auto plan = std::make_unique<Descriptor>(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
  plan->set(CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION, CUDNN_TYPE_CHAR, bytes.data(), int64_t(bytes.size()))
      .set(CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, &handle);
  plan->finalize();
  return plan;
}

std::size_t plan_workspace(const Descriptor& plan) {
  int64_t ws = 0, n = 0;
  NB_CUDNN_SUPPORTED(cudnnBackendGetAttribute(plan.get(), CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64,
                                              1, &n, &ws));
  return std::size_t(ws);
}

std::string plan_identity() {
  int device = 0, driver_api = 0;
  NB_CUDA_CHECK(cudaGetDevice(&device));
  cudaDeviceProp prop{};
  NB_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  NB_CUDA_CHECK(cudaDriverGetVersion(&driver_api));
  const std::string driver = NvmlMonitor(device).driver_version().value_or("unknown");
  return std::string(prop.name) + " sm_" + std::to_string(prop.major) + std::to_string(prop.minor) + ", driver " +
         driver + ", CUDA driver API " + std::to_string(driver_api) + ", cuDNN " + std::to_string(cudnnGetVersion()) +
         " (headers " + std::to_string(CUDNN_VERSION) + ")";
}

}  // namespace nb::cudnn_backend
