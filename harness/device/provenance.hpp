#pragma once
// Where the numbers came from: GPU, clocks, driver, CUDA, cuBLAS and cuDNN versions, commit,
// command line, host and times. It comes first in every report.
#include <optional>
#include <string>

#include "harness/device/gpu_info.hpp"

namespace nb {

struct Provenance {
  GpuInfo gpu;
  std::optional<int> sm_clock_at_start_mhz;
  std::string driver_version, cuda_driver_api, cuda_runtime, cublas_version, cudnn_version, cudnn_header_version;
  std::string git_commit = "unknown";
  std::optional<bool> git_dirty;
  std::string normbench_version, command_line, hostname, started_at, finished_at;
};

// Reads versions from the libraries and the driver; the commit from NORMBENCH_GIT_COMMIT or git.
Provenance collect_provenance(const GpuInfo& gpu, const std::string& command_line);

std::string utc_now_iso8601();
std::string utc_now_compact();  // 20261122T051500Z, for run ids
// Shell-quotes argv into one command line that a shell reproduces exactly.
std::string quote_command_line(int argc, char** argv);

}  // namespace nb
