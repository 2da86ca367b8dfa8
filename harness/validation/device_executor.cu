#include "harness/validation/device_executor.hpp"

#include <cublas_v2.h>

#include <memory>

#include "harness/library_check.hpp"

namespace nb {
namespace {

// The harness's own handle for the references (the baselines keep theirs): one per process, which
// works on one device.
cublasHandle_t reference_handle() {
  static cublasHandle_t h = [] {
    cublasHandle_t created = nullptr;
    NB_CUBLAS_CHECK(cublasCreate(&created));
    // Plain FP64, no reduced-precision modes: the reference's products are IEEE double.
    NB_CUBLAS_CHECK(cublasSetMathMode(created, CUBLAS_PEDANTIC_MATH));
    return created;
  }();
  return h;
}

}  // namespace

std::function<void()> DeviceExecutor::arrival() {
  cudaEvent_t created = nullptr;
  NB_CUDA_CHECK(cudaEventCreateWithFlags(&created, cudaEventDisableTiming));
  const std::shared_ptr<CUevent_st> event(created, [](cudaEvent_t e) { cudaEventDestroy(e); });
  NB_CUDA_CHECK(cudaEventRecord(event.get(), stream_));
  return [event] { NB_CUDA_CHECK(cudaEventSynchronize(event.get())); };
}

// Row-major C = op(A) op(B) is column-major C' = op(B)' op(A)': B's memory first, A's second.
void DeviceExecutor::gemm(const GemmShape& s, const double* a, const double* b, double* c) {
  if (s.m <= 0 || s.n <= 0) return;
  cublasHandle_t h = reference_handle();
  NB_CUBLAS_CHECK(cublasSetStream(h, stream_));
  const double one = 1.0, zero = 0.0;
  const int m = static_cast<int>(s.m), n = static_cast<int>(s.n), k = static_cast<int>(s.k);
  const int lda = s.transpose_a ? m : k, ldb = s.transpose_b ? k : n;
  NB_CUBLAS_CHECK(cublasDgemm(h, s.transpose_b ? CUBLAS_OP_T : CUBLAS_OP_N, s.transpose_a ? CUBLAS_OP_T : CUBLAS_OP_N, n,
                              m, k, &one, b, ldb, a, lda, &zero, c, n));
}

}  // namespace nb
