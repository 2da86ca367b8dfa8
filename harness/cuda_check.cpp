#include "harness/cuda_check.hpp"

#include <sstream>

namespace nb {

void throw_cuda_error(cudaError_t status, const char* what, const char* file, int line) {
  std::ostringstream msg;
  msg << file << ":" << line << ": " << what << " failed: " << cudaGetErrorName(status) << " ("
      << cudaGetErrorString(status) << ")";
  throw DeviceError(msg.str());
}

}  // namespace nb
