#pragma once
// What the probes in tests/probes share: a CUDA device or CTest's skip code (77), and a failed CUDA
// call (the harness's checks throw) as a line and exit status 1.
#include <cuda_runtime.h>

#include <cstdio>
#include <exception>

namespace nb::probes {

inline constexpr int kSkip = 77;

// Runs body() (its return is the exit status) where a CUDA device is present; kSkip otherwise.
template <class Body>
int run_on_device(const char* probe, Body body) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "%s: no CUDA device\n", probe);
    return kSkip;
  }
  try {
    return body();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", probe, e.what());
    return 1;
  }
}

}  // namespace nb::probes
