#pragma once
// Every CUDA runtime call and kernel launch goes through these checks; a failure throws
// DeviceError naming the call and its file:line.
#include <cuda_runtime.h>

#include <string>

#include "harness/errors.hpp"

namespace nb {

[[noreturn]] void throw_cuda_error(cudaError_t status, const char* what, const char* file, int line);

inline void check_cuda(cudaError_t status, const char* what, const char* file, int line) {
  if (status != cudaSuccess) throw_cuda_error(status, what, file, line);
}

}  // namespace nb

#define NB_CUDA_CHECK(call) ::nb::check_cuda((call), #call, __FILE__, __LINE__)
// After a <<<...>>> launch: catches bad configurations at once (not asynchronous faults).
#define NB_CHECK_LAUNCH() ::nb::check_cuda(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)
