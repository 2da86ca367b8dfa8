#pragma once
// Status checks for cuDNN and cuBLAS calls: a failure throws DeviceError with the library's
// status string and file:line; NB_CUDNN_SUPPORTED turns a refusal into Unsupported instead.
#include <cublas_v2.h>
#include <cudnn.h>

#include "harness/errors.hpp"

namespace nb {

[[noreturn]] void throw_cudnn_error(cudnnStatus_t status, const char* what, const char* file, int line,
                                    bool as_unsupported);
[[noreturn]] void throw_cublas_error(cublasStatus_t status, const char* what, const char* file, int line);

}  // namespace nb

#define NB_CUDNN_CHECK(call)                                                                      \
  do {                                                                                            \
    cudnnStatus_t nb_status_ = (call);                                                            \
    if (nb_status_ != CUDNN_STATUS_SUCCESS) ::nb::throw_cudnn_error(nb_status_, #call, __FILE__, __LINE__, false); \
  } while (0)

// For calls whose failure means "cuDNN does not run this problem" (plan building, support checks).
#define NB_CUDNN_SUPPORTED(call)                                                                  \
  do {                                                                                            \
    cudnnStatus_t nb_status_ = (call);                                                            \
    if (nb_status_ != CUDNN_STATUS_SUCCESS) ::nb::throw_cudnn_error(nb_status_, #call, __FILE__, __LINE__, true); \
  } while (0)

#define NB_CUBLAS_CHECK(call)                                                                     \
  do {                                                                                            \
    cublasStatus_t nb_status_ = (call);                                                           \
    if (nb_status_ != CUBLAS_STATUS_SUCCESS) ::nb::throw_cublas_error(nb_status_, #call, __FILE__, __LINE__); \
  } while (0)
