#include "harness/device/gpu_info.hpp"

#include <cuda_runtime.h>
#include <dlfcn.h>

#include <cctype>
#include <cstdio>

#include "harness/cuda_check.hpp"

namespace nb {

double GpuInfo::theoretical_peak_gbps() const {
  return 2.0 * memory_clock_mhz * 1e6 * (memory_bus_bits / 8.0) / 1e9;
}

std::string gpu_slug(const std::string& name) {
  std::string slug;
  for (char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c)))
      slug += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    else if (!slug.empty() && slug.back() != '-')
      slug += '-';
  }
  while (!slug.empty() && slug.back() == '-') slug.pop_back();
  return slug.empty() ? "unknown-gpu" : slug;
}

namespace {

// Why cudaGetDeviceCount found no device.
std::string describe_device_count_failure(cudaError_t status) {
  if (status == cudaSuccess) return "the driver reports none";
  // Without any NVIDIA driver the runtime says "driver version is insufficient", which sends people
  // to upgrade a driver that is not there: name the missing driver instead.
  int driver_version = 0;
  const bool no_driver_version = cudaDriverGetVersion(&driver_version) != cudaSuccess || driver_version == 0;
  cudaGetLastError();
  void* libcuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (libcuda != nullptr) dlclose(libcuda);
  if ((status == cudaErrorInsufficientDriver || status == cudaErrorNoDevice) && (no_driver_version || !libcuda))
    return std::string("no NVIDIA driver found (") + (libcuda ? "the driver reports no version" : "libcuda.so.1 not loadable") +
           "): this command needs a GPU and its driver";
  return cudaGetErrorString(status);
}

}  // namespace

std::string why_no_cuda_device() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status == cudaSuccess && count > 0) return "";
  cudaGetLastError();
  return describe_device_count_failure(status);
}

bool cuda_device_available() {
  int count = 0;
  cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    cudaGetLastError();  // clear the sticky-free error so later calls start clean
    return false;
  }
  return count > 0;
}

namespace {

int attribute(cudaDeviceAttr attr, int device) {
  int value = 0;
  NB_CUDA_CHECK(cudaDeviceGetAttribute(&value, attr, device));
  return value;
}

std::string format_uuid(const cudaUUID_t& uuid) {
  std::string out = "GPU-";
  char buf[3];
  for (int i = 0; i < 16; ++i) {
    std::snprintf(buf, sizeof buf, "%02x", static_cast<unsigned char>(uuid.bytes[i]));
    out += buf;
    if (i == 3 || i == 5 || i == 7 || i == 9) out += '-';
  }
  return out;
}

}  // namespace

GpuInfo query_gpu(int device) {
  int count = 0;
  cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0) {
    cudaGetLastError();
    throw DeviceError("no usable CUDA device: " + describe_device_count_failure(status));
  }
  if (device < 0 || device >= count)
    throw UsageError("CUDA device " + std::to_string(device) + " does not exist (" + std::to_string(count) +
                     " visible)");
  NB_CUDA_CHECK(cudaSetDevice(device));
  cudaDeviceProp prop{};
  NB_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  GpuInfo g;
  g.device = device;
  g.name = prop.name;
  g.slug = gpu_slug(g.name);
  g.uuid = format_uuid(prop.uuid);
  g.compute_capability = std::to_string(prop.major) + "." + std::to_string(prop.minor);
  g.sm_count = prop.multiProcessorCount;
  g.l2_bytes = static_cast<std::size_t>(prop.l2CacheSize);
  g.memory_bytes = prop.totalGlobalMem;
  g.sm_clock_max_mhz = attribute(cudaDevAttrClockRate, device) / 1000;
  g.memory_clock_mhz = attribute(cudaDevAttrMemoryClockRate, device) / 1000;
  g.memory_bus_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, device);
  return g;
}

}  // namespace nb
