#pragma once
// What the probes in tests/probes share: their mode argument, a CUDA device or CTest's skip code
// (77), and a failed CUDA call (the harness's checks throw) as a line and exit status 1.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdio>
#include <cstring>
#include <exception>

namespace nb::probes {

inline constexpr int kSkip = 77;

// The index of argv[1] among `names` (a probe's modes), or -1 after a usage line on stderr.
template <std::size_t N>
int mode_of(const char* probe, int argc, char** argv, const char* const (&names)[N]) {
  for (std::size_t m = 0; m < N; ++m)
    if (argc == 2 && std::strcmp(argv[1], names[m]) == 0) return int(m);
  std::fprintf(stderr, "usage: %s", probe);
  for (std::size_t m = 0; m < N; ++m) std::fprintf(stderr, "%c%s", m == 0 ? ' ' : '|', names[m]);
  std::fprintf(stderr, "\n");
  return -1;
}

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
