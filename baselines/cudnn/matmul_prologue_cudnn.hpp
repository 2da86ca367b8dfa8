#pragma once
// Does cuDNN's runtime fusion run a matmul whose A operand is made by a pointwise prologue? For
// the backward of gemm_scale_bn: dg = A dy + B (g - c) + C per column (the coefficients of
// kernels/gemm_pipelines/gemm_scale_bn_bwd/backward_passes.hpp), then dx = dg W and dW = dg^T x, each one
// backend graph. The constructor plans both (and, as the control, each matmul alone on a
// materialized dg) and keeps every status; it throws nb::Unsupported with them when a prologue
// plan does not finalize. All tensors fp32, allow_tf32 as in matmul_fusion_cudnn.hpp; or, with
// bf16, autocast's storage: g, W, x, dx and dW in bf16, dg made in fp32 and rounded to bf16 (the
// matmuls' A operand), dy and the coefficient vectors fp32, the products summed in fp32.
#include <cuda_runtime.h>
#include <cudnn.h>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "baselines/cudnn/graph_plan.hpp"

namespace nb {

struct PrologueGemmShape {
  int m, n, k;  // dy and g (M, N), W (N, K), x (M, K)
  bool allow_tf32;
  bool bf16 = false;  // g, W, x, dx, dW and dg in bf16
  bool tensor_cores() const { return allow_tf32 || bf16; }
};

// The per-column coefficient vectors (N each) and the two matrices the prologue reads (g in fp32,
// or bf16 with PrologueGemmShape::bf16).
struct ProloguePointers {
  const float* dy;
  const void* g;
  const float *a, *b, *c, *shift;
};

class MatmulPrologueGemms {
 public:
  MatmulPrologueGemms(cudnnHandle_t handle, const PrologueGemmShape& shape,
                      const cudnn_backend::PlanCacheUse& cache = {});
  ~MatmulPrologueGemms();
  MatmulPrologueGemms(const MatmulPrologueGemms&) = delete;
  MatmulPrologueGemms& operator=(const MatmulPrologueGemms&) = delete;

  std::size_t workspace_bytes() const { return workspace_; }
  // "dx prologue+matmul: ok (...)", "dW ...", and the controls, in the order tried.
  const std::vector<std::pair<std::string, std::string>>& statuses() const { return statuses_; }

  // dx = dg W and dW = dg^T x with dg made in each plan's prologue; asynchronous on `stream`.
  // weight, x, dx and dweight in fp32, or bf16 with PrologueGemmShape::bf16.
  void run(cudaStream_t stream, const ProloguePointers& dg, const void* weight, const void* x, void* dx,
           void* dweight, void* workspace) const;

 private:
  cudnnHandle_t handle_;
  PrologueGemmShape shape_;
  cudnnBackendDescriptor_t dx_plan_ = nullptr, dw_plan_ = nullptr;
  std::size_t workspace_ = 0;
  std::vector<std::pair<std::string, std::string>> statuses_;
};

}  // namespace nb
