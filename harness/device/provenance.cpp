#include "harness/device/provenance.hpp"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>
#include <unistd.h>

#include <cstdlib>
#include <ctime>

#include "harness/device/nvml_monitor.hpp"
#include "normbench_build_commit.hpp"

#ifndef NORMBENCH_VERSION
#define NORMBENCH_VERSION "0"
#endif

namespace nb {
namespace {

std::string cuda_version_string(int v) { return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10); }

std::string cublas_version() {
  int major = 0, minor = 0, patch = 0;
  cublasGetProperty(MAJOR_VERSION, &major);
  cublasGetProperty(MINOR_VERSION, &minor);
  cublasGetProperty(PATCH_LEVEL, &patch);
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

// cuDNN 9 encodes versions as major*10000 + minor*100 + patch.
std::string cudnn_version_string(std::size_t v) {
  return std::to_string(v / 10000) + "." + std::to_string((v % 10000) / 100) + "." + std::to_string(v % 100);
}

}  // namespace

std::string utc_now_iso8601() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::string utc_now_compact() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", std::gmtime(&t));
  return buf;
}

std::string quote_command_line(int argc, char** argv) {
  std::string line;
  for (int i = 0; i < argc; ++i) {
    std::string arg = argv[i];
    bool plain = !arg.empty() && arg.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                                                       "_-./=:,+@%") == std::string::npos;
    if (!line.empty()) line += ' ';
    if (plain) {
      line += arg;
    } else {
      line += '\'';
      for (char c : arg) line += c == '\'' ? std::string("'\\''") : std::string(1, c);
      line += '\'';
    }
  }
  return line;
}

Provenance collect_provenance(const GpuInfo& gpu, const std::string& command_line) {
  Provenance p;
  p.gpu = gpu;
  NvmlMonitor nvml(gpu.device);
  p.sm_clock_at_start_mhz = nvml.sm_clock_mhz();
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  p.cuda_driver_api = cuda_version_string(driver);
  p.cuda_runtime = cuda_version_string(runtime);
  p.driver_version = nvml.driver_version().value_or("CUDA driver API " + p.cuda_driver_api);
  p.cublas_version = cublas_version();
  p.cudnn_version = cudnn_version_string(cudnnGetVersion());
  p.cudnn_header_version = std::to_string(CUDNN_MAJOR) + "." + std::to_string(CUDNN_MINOR) + "." +
                           std::to_string(CUDNN_PATCHLEVEL);
  // The commit the binary was built from (cmake/WriteBuildCommit.cmake), not the source folder's
  // state when it runs: a binary built from another tree (scripts/device/ab.sh's base, unpacked
  // inside this work tree) or before a later edit says what it is. NORMBENCH_GIT_COMMIT at run time
  // still overrides it.
  if (const char* env = std::getenv("NORMBENCH_GIT_COMMIT"); env && *env) {
    p.git_commit = env;
    if (const char* dirty = std::getenv("NORMBENCH_GIT_DIRTY"); dirty && *dirty) p.git_dirty = std::string(dirty) != "0";
  } else if (std::string(NORMBENCH_BUILD_COMMIT) != "unknown") {
    p.git_commit = NORMBENCH_BUILD_COMMIT;
    p.git_dirty = NORMBENCH_BUILD_DIRTY;
  }
  p.normbench_version = NORMBENCH_VERSION;
  p.command_line = command_line;
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  p.hostname = host;
  p.started_at = utc_now_iso8601();
  return p;
}

}  // namespace nb
