#pragma once
// cuBLAS's GEMM at a problem's precision, for the row-major g = x W^T of nn.Linear: the
// library baseline the pipelines are quoted against and the GEMM ceiling of every such problem.
// fp32 runs CUBLAS_COMPUTE_32F with the default math mode (IEEE fp32, as PyTorch with
// allow_tf32 = False); tf32 runs CUBLAS_COMPUTE_32F_FAST_TF32 (tensor cores, fp32 accumulation);
// bf16 reads bf16 operands with CUBLAS_COMPUTE_32F (tensor cores, fp32 accumulation).
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstddef>

#include "harness/dtype.hpp"

namespace nb::cublas {

// One cuBLAS handle, created on first use (outside the timed path: variants call it in prepare).
cublasHandle_t handle();

// c (M, N) row-major = x w^T for x (M, K) and w (N, K) row-major (+ c when accumulate: PyTorch's
// addmm with the bias copied in first).
void gemm(const float* x, const float* w, float* c, int m, int n, int k, bool tf32, bool accumulate,
          cudaStream_t stream);

// The same GEMM on bf16 operands with fp32 accumulation and an fp32 c (CUBLAS_COMPUTE_32F): the
// Hopper GEMM's bf16 baseline in gemm_configs, and the bf16 pipelines' GEMM that keeps h in fp32.
void gemm_bf16(const __nv_bfloat16* x, const __nv_bfloat16* w, float* c, int m, int n, int k, bool accumulate,
               cudaStream_t stream);
// bf16 operands and a bf16 c, as autocast's linear writes it: the bf16 pipelines' GEMM ceiling.
void gemm_bf16_out(const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* c, int m, int n, int k,
                   cudaStream_t stream);

// The linear layer's backward GEMMs, row-major, for dg (M, N), W (N, K), x (M, K):
// dx (M, K) = dg W (what autograd runs for the input's gradient) and dW (N, K) = dg^T x.
void gemm_dx(const float* dg, const float* weight, float* dx, int m, int n, int k, bool tf32, cudaStream_t stream);
void gemm_dw(const float* dg, const float* x, float* dweight, int m, int n, int k, bool tf32, cudaStream_t stream);
// dW from dg^T (N, M) row-major: both operands untransposed for cuBLAS (gemm_dw's dg is not).
void gemm_dw_from_transposed(const float* dg_t, const float* x, float* dweight, int m, int n, int k, bool tf32,
                             cudaStream_t stream);
// The same three in bf16, as autocast's backward runs them: bf16 dg, W, x and outputs, fp32
// accumulation (CUBLAS_COMPUTE_32F).
void gemm_dx_bf16(const __nv_bfloat16* dg, const __nv_bfloat16* weight, __nv_bfloat16* dx, int m, int n, int k,
                  cudaStream_t stream);
void gemm_dw_bf16(const __nv_bfloat16* dg, const __nv_bfloat16* x, __nv_bfloat16* dweight, int m, int n, int k,
                  cudaStream_t stream);
void gemm_dw_from_transposed_bf16(const __nv_bfloat16* dg_t, const __nv_bfloat16* x, __nv_bfloat16* dweight, int m,
                                  int n, int k, cudaStream_t stream);

// cuBLASLt with its bias epilogue: c = a b^T + bias (bias per output column). fp32 and tf32: fp32
// operands, bias and c; bf16: bf16 operands, bias and c (autocast's linear: h rounded to bf16),
// fp32 compute.
class LtBiasGemm {
 public:
  static constexpr std::size_t kWorkspaceBytes = std::size_t(32) << 20;  // NVIDIA's advice for Hopper

  LtBiasGemm() = default;
  ~LtBiasGemm();
  LtBiasGemm(const LtBiasGemm&) = delete;
  LtBiasGemm& operator=(const LtBiasGemm&) = delete;

  // Builds the descriptors and picks the heuristic's first algorithm; throws Unsupported when
  // cuBLASLt offers none for this shape.
  void prepare(int m, int n, int k, DType precision);
  // c = x w^T + bias at the prepared shape, every pointer in the prepared precision's storage.
  void run(const void* x, const void* w, const void* bias, void* c, void* workspace, cudaStream_t stream) const;

 private:
  void release();
  cublasLtHandle_t lt_ = nullptr;
  cublasLtMatmulDesc_t desc_ = nullptr;
  cublasLtMatrixLayout_t a_ = nullptr, b_ = nullptr, c_ = nullptr;
  cublasLtMatmulAlgo_t algo_{};
  int m_ = 0, n_ = 0, k_ = 0;
  DType precision_ = DType::f32;
};

}  // namespace nb::cublas
