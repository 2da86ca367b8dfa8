#pragma once
// Does cuDNN's runtime fusion engine run g = x W^T, h = (g + b) * s and the column sums of h
// (and of h*h) in one execution plan? probe_matmul_fusion() answers in code: it builds a ladder
// of backend graphs, most ambitious first, asks the heuristics (mode A, then FALLBACK) for
// engine configs and finalizes plans without executing them, recording each rung's status.
// MatmulBiasScaleStats keeps the best plan that has at least the bias+scale epilogue and runs it.
//
// Operands (nn.Linear's convention, as the kernels' gemm::Operands): x (M, K) and
// W (N, K) row-major, b and s (N), h (M, N) row-major, column sums (N). fp32 storage, or x, W and
// b in bf16 (a bf16 problem's, as autocast's linear takes them) with s, h and the sums in fp32 and
// the products summed in fp32. With fp32 operands and allow_tf32 false, an engine config whose
// numerical notes say TENSOR_CORE or DOWN_CONVERT_INPUTS is never used (that is how cuDNN marks
// TF32 math on fp32 data); bf16 operands take the tensor cores.
#include <cuda_runtime.h>
#include <cudnn.h>

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "baselines/cudnn/graph_plan.hpp"

namespace nb {

struct MatmulFusionShape {
  int m, n, k;
  bool allow_tf32;             // fp32 operands: false, IEEE fp32 products only ("fp32"); true, TF32 allowed ("tf32")
  bool bf16_operands = false;  // x, W and b stored in bf16 ("bf16")
  bool tensor_cores() const { return allow_tf32 || bf16_operands; }
};

// The ladder, most ambitious first.
enum class MatmulFusionLevel {
  bias_scale_sum_sumsq,  // matmul, +bias, *scale -> h; column sum of h; column sum of h*h
  bias_scale_sum,        // matmul, +bias, *scale -> h; column sum of h
  bias_scale,            // matmul, +bias, *scale -> h (pointwise epilogue only)
  matmul_only,           // matmul -> h (the control: without it nothing else can work)
};

inline constexpr MatmulFusionLevel kMatmulFusionLadder[] = {
    MatmulFusionLevel::bias_scale_sum_sumsq, MatmulFusionLevel::bias_scale_sum, MatmulFusionLevel::bias_scale,
    MatmulFusionLevel::matmul_only};

std::string matmul_fusion_level_name(MatmulFusionLevel level);  // "matmul+bias+scale+sum+sumsq", ...
bool matmul_fusion_has_epilogue(MatmulFusionLevel level);       // bias and scale are in the graph
bool matmul_fusion_has_sum(MatmulFusionLevel level);
bool matmul_fusion_has_sumsq(MatmulFusionLevel level);

struct MatmulFusionProbe {
  // One entry per rung, in ladder order: "ok (engine N, ...)" or the failure (cuDNN's status
  // strings, cudnnGetErrorString and cudnnGetLastErrorString, per engine config tried).
  std::vector<std::pair<MatmulFusionLevel, std::string>> statuses;
  std::optional<MatmulFusionLevel> best;  // the first rung whose plan finalized
};

// Builds and finalizes plans for every rung without executing them. Never throws for a refusal:
// every failure ends up in the rung's status string. It uses no plan cache: it is the question.
MatmulFusionProbe probe_matmul_fusion(cudnnHandle_t handle, const MatmulFusionShape& shape);

// One shape, the best rung with at least the bias+scale epilogue, its plan and workspace size.
// The constructor throws nb::Unsupported (with every rung's status) when no rung with the
// epilogue finalizes; the bare matmul is then not planned. The handle is borrowed: it must
// outlive this object; run() binds it to the given stream.
class MatmulBiasScaleStats {
 public:
  MatmulBiasScaleStats(cudnnHandle_t handle, const MatmulFusionShape& shape,
                       const cudnn_backend::PlanCacheUse& cache = {});
  ~MatmulBiasScaleStats();
  MatmulBiasScaleStats(const MatmulBiasScaleStats&) = delete;
  MatmulBiasScaleStats& operator=(const MatmulBiasScaleStats&) = delete;

  MatmulFusionLevel level() const { return level_; }
  const MatmulFusionShape& shape() const { return shape_; }
  bool has_sum() const { return matmul_fusion_has_sum(level_); }
  bool has_sumsq() const { return matmul_fusion_has_sumsq(level_); }
  std::size_t workspace_bytes() const { return workspace_; }
  const std::string& status() const { return status_; }  // "ok (engine N, ...)" of the kept plan
  // The statuses of the rungs tried while building (more ambitious ones first).
  const std::vector<std::pair<MatmulFusionLevel, std::string>>& statuses() const { return statuses_; }

  // h = (x W^T + bias) * scale, and the column sums the level has. col_sum / col_sumsq may be
  // null when the level lacks them (they are ignored then); they are zeroed on the stream before
  // the plan runs. workspace: workspace_bytes() of device memory (null when that is 0).
  // x, w and bias hold fp32 or, with bf16_operands, bf16.
  void run(cudaStream_t stream, const void* x, const void* w, const void* bias, const float* scale, float* h,
           float* col_sum, float* col_sumsq, void* workspace) const;

 private:
  cudnnHandle_t handle_;
  MatmulFusionShape shape_;
  MatmulFusionLevel level_ = MatmulFusionLevel::matmul_only;
  cudnnBackendDescriptor_t plan_ = nullptr;
  std::size_t workspace_ = 0;
  std::string status_;
  std::vector<std::pair<MatmulFusionLevel, std::string>> statuses_;
};

}  // namespace nb
