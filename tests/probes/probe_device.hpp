#pragma once
// What the probes in tests/probes share: a CUDA device, or CTest's skip code (77) with a line
// saying so.
#include <cuda_runtime.h>

#include <cstdio>

namespace nb::probes {

inline constexpr int kSkip = 77;

// True when a CUDA device is present; otherwise prints "<probe>: no CUDA device".
inline bool has_device(const char* probe) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0) return true;
  std::fprintf(stderr, "%s: no CUDA device\n", probe);
  return false;
}

}  // namespace nb::probes
