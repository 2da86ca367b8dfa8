#include "baselines/cublas/cublas_gemm.hpp"

#include <string>

#include "baselines/library_alignment.hpp"
#include "harness/library_check.hpp"

namespace nb::cublas {

// Row-major (M, N) = x W^T is column-major (N, M) = W^T' x' with W (N, K) seen as a K x N
// column-major matrix (transposed in the call) and x as K x M: no copy, no transpose kernel.

namespace {

cublasComputeType_t compute_type(bool tf32) { return tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F; }

// One column-major GEMM on the shared handle: c (m, n) of `output` = op_a(a) op_b(b) (+ c when
// accumulate), a and b of `inputs` (fp32 or bf16).
void column_major_gemm(cublasOperation_t op_a, cublasOperation_t op_b, int m, int n, int k, const void* a, int lda,
                       const void* b, int ldb, void* c, int ldc, cudaDataType_t inputs, cudaDataType_t output,
                       cublasComputeType_t compute, bool accumulate, cudaStream_t stream) {
  cublasHandle_t h = handle();
  NB_CUBLAS_CHECK(cublasSetStream(h, stream));
  const float one = 1.0f, beta = accumulate ? 1.0f : 0.0f;
  NB_CUBLAS_CHECK(cublasGemmEx(h, op_a, op_b, m, n, k, &one, a, inputs, lda, b, inputs, ldb, &beta, c, output, ldc,
                               compute, CUBLAS_GEMM_DEFAULT));
}

void column_major_gemm(cublasOperation_t op_a, cublasOperation_t op_b, int m, int n, int k, const float* a, int lda,
                       const float* b, int ldb, float* c, int ldc, bool tf32, bool accumulate, cudaStream_t stream) {
  column_major_gemm(op_a, op_b, m, n, k, a, lda, b, ldb, c, ldc, CUDA_R_32F, CUDA_R_32F, compute_type(tf32), accumulate,
                    stream);
}

}  // namespace

cublasHandle_t handle() {
  static cublasHandle_t h = [] {
    cublasHandle_t created = nullptr;
    NB_CUBLAS_CHECK(cublasCreate(&created));
    return created;
  }();
  return h;
}

void gemm(const float* x, const float* w, float* c, int m, int n, int k, bool tf32, bool accumulate,
          cudaStream_t stream) {
  column_major_gemm(CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, w, k, x, k, c, n, tf32, accumulate, stream);
}

void gemm_bf16(const __nv_bfloat16* x, const __nv_bfloat16* w, float* c, int m, int n, int k, bool accumulate,
               cudaStream_t stream) {
  column_major_gemm(CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, w, k, x, k, c, n, CUDA_R_16BF, CUDA_R_32F, CUBLAS_COMPUTE_32F,
                    accumulate, stream);
}

void gemm_bf16_out(const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* c, int m, int n, int k,
                   cudaStream_t stream) {
  column_major_gemm(CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, w, k, x, k, c, n, CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F,
                    false, stream);
}

// dx row-major (M, K) is column-major (K, M) = W' (K, N) dg' (N, M), where W' and dg' are the
// row-major W and dg read as column-major: both untransposed.
void gemm_dx(const float* dg, const float* weight, float* dx, int m, int n, int k, bool tf32, cudaStream_t stream) {
  column_major_gemm(CUBLAS_OP_N, CUBLAS_OP_N, k, m, n, weight, k, dg, n, dx, k, tf32, false, stream);
}

// dW row-major (N, K) is column-major (K, N) = x' (K, M) dg'^T (M, N), dg' being dg read as the
// column-major (N, M).
void gemm_dw(const float* dg, const float* x, float* dweight, int m, int n, int k, bool tf32, cudaStream_t stream) {
  column_major_gemm(CUBLAS_OP_N, CUBLAS_OP_T, k, n, m, x, k, dg, n, dweight, k, tf32, false, stream);
}

// dg^T row-major (N, M) is dg read as the column-major (M, N): x' (K, M) dg (M, N), no transpose.
void gemm_dw_from_transposed(const float* dg_t, const float* x, float* dweight, int m, int n, int k, bool tf32,
                             cudaStream_t stream) {
  column_major_gemm(CUBLAS_OP_N, CUBLAS_OP_N, k, n, m, x, k, dg_t, m, dweight, k, tf32, false, stream);
}

void gemm_dx_bf16(const __nv_bfloat16* dg, const __nv_bfloat16* weight, __nv_bfloat16* dx, int m, int n, int k,
                  cudaStream_t stream) {
  column_major_gemm(CUBLAS_OP_N, CUBLAS_OP_N, k, m, n, weight, k, dg, n, dx, k, CUDA_R_16BF, CUDA_R_16BF,
                    CUBLAS_COMPUTE_32F, false, stream);
}

void gemm_dw_bf16(const __nv_bfloat16* dg, const __nv_bfloat16* x, __nv_bfloat16* dweight, int m, int n, int k,
                  cudaStream_t stream) {
  column_major_gemm(CUBLAS_OP_N, CUBLAS_OP_T, k, n, m, x, k, dg, n, dweight, k, CUDA_R_16BF, CUDA_R_16BF,
                    CUBLAS_COMPUTE_32F, false, stream);
}

void gemm_dw_from_transposed_bf16(const __nv_bfloat16* dg_t, const __nv_bfloat16* x, __nv_bfloat16* dweight, int m,
                                  int n, int k, cudaStream_t stream) {
  column_major_gemm(CUBLAS_OP_N, CUBLAS_OP_N, k, n, m, x, k, dg_t, m, dweight, k, CUDA_R_16BF, CUDA_R_16BF,
                    CUBLAS_COMPUTE_32F, false, stream);
}

LtBiasGemm::~LtBiasGemm() { release(); }

void LtBiasGemm::release() {
  if (a_) cublasLtMatrixLayoutDestroy(a_);
  if (b_) cublasLtMatrixLayoutDestroy(b_);
  if (c_) cublasLtMatrixLayoutDestroy(c_);
  if (desc_) cublasLtMatmulDescDestroy(desc_);
  a_ = b_ = c_ = nullptr;
  desc_ = nullptr;
}

void LtBiasGemm::prepare(int m, int n, int k, DType precision) {
  if (desc_ && m == m_ && n == n_ && k == k_ && precision == precision_) return;
  release();
  if (!lt_) NB_CUBLAS_CHECK(cublasLtCreate(&lt_));
  m_ = m, n_ = n, k_ = k, precision_ = precision;
  NB_CUBLAS_CHECK(cublasLtMatmulDescCreate(&desc_, compute_type(precision == DType::tf32), CUDA_R_32F));
  const cublasOperation_t transa = CUBLAS_OP_T, transb = CUBLAS_OP_N;
  NB_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSA, &transa, sizeof transa));
  NB_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSB, &transb, sizeof transb));
  const cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_BIAS;
  NB_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue));
  const cudaDataType_t storage = precision == DType::bf16 ? CUDA_R_16BF : CUDA_R_32F;
  NB_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &storage, sizeof storage));
  // Column-major views: A = W as K x N (transposed in the op), B = x as K x M, C = g as N x M.
  NB_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&a_, storage, k, n, k));
  NB_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&b_, storage, k, m, k));
  NB_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&c_, storage, n, m, n));
  cublasLtMatmulPreference_t pref = nullptr;
  NB_CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref));
  const std::size_t ws = kWorkspaceBytes;
  NB_CUBLAS_CHECK(
      cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws));
  cublasLtMatmulHeuristicResult_t result{};
  int found = 0;
  const cublasStatus_t status =
      cublasLtMatmulAlgoGetHeuristic(lt_, desc_, a_, b_, c_, c_, pref, 1, &result, &found);
  cublasLtMatmulPreferenceDestroy(pref);
  if (status != CUBLAS_STATUS_SUCCESS || found == 0)
    throw Unsupported(std::string("cuBLASLt offers no algorithm with the bias epilogue for this shape (") +
                      cublasGetStatusString(status) + ")");
  algo_ = result.algo;
}

void LtBiasGemm::run(const void* x, const void* w, const void* bias, void* c, void* workspace,
                     cudaStream_t stream) const {
  if (!desc_) throw Unsupported("cuBLASLt GEMM was not prepared");
  // The algorithm was chosen for aligned operands (the heuristic's default alignment preference).
  require_library_alignment("cuBLASLt's bias-epilogue GEMM", {{"x", x}, {"W", w}, {"bias", bias}, {"output", c}});
  NB_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias));
  const float one = 1.0f, zero = 0.0f;
  NB_CUBLAS_CHECK(cublasLtMatmul(lt_, desc_, &one, w, a_, x, b_, &zero, c, c_, c, c_, &algo_, workspace,
                                 kWorkspaceBytes, stream));
}

}  // namespace nb::cublas
