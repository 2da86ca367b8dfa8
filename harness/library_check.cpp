#include "harness/library_check.hpp"

#include <sstream>

namespace nb {

void throw_cudnn_error(cudnnStatus_t status, const char* what, const char* file, int line, bool as_unsupported) {
  std::ostringstream msg;
  msg << cudnnGetErrorString(status) << " from " << what << " (" << file << ":" << line << ")";
  char detail[1024] = {0};
  cudnnGetLastErrorString(detail, sizeof detail);
  if (detail[0]) msg << ": " << detail;
  if (as_unsupported) throw Unsupported("cuDNN: " + msg.str());
  throw DeviceError("cuDNN: " + msg.str());
}

void throw_cublas_error(cublasStatus_t status, const char* what, const char* file, int line) {
  std::ostringstream msg;
  msg << "cuBLAS: " << cublasGetStatusName(status) << " (" << cublasGetStatusString(status) << ") from " << what
      << " (" << file << ":" << line << ")";
  throw DeviceError(msg.str());
}

}  // namespace nb
