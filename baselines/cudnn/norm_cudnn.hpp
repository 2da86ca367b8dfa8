#pragma once
// cuDNN's LayerNorm and RMSNorm over rows, forward and backward, through the backend graph API
// (baselines/cudnn/graph_plan): one NORM_FORWARD or NORM_BACKWARD operation per graph. A row
// tensor (M, N), row-major, is shown to cuDNN as [M, N, 1, 1] normalized over N (strides
// {N, 1, N, N}, cuDNN's packed NHWC), weight and bias as [1, N, 1, 1], the saved statistics as
// [M, 1, 1, 1] fp32, eps as a by-value fp32 scalar. Activations, weights and their gradients are
// stored in the problem's storage type (fp32, bf16 or fp16); rstd is cuDNN's inv_variance.
#include <cuda_runtime.h>
#include <cudnn.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "baselines/cudnn/graph_plan.hpp"
#include "harness/dtype.hpp"

namespace nb {

// The four graphs, one per row op.
enum class RowNormGraph {
  rms_forward,     // rmsnorm_rows:       y = x * rstd * w
  layer_forward,   // layernorm_rows:     y = (x - mean) * rstd * w + b, mean and rstd saved
  rms_backward,    // rmsnorm_rows_bwd:   dx, dw from x, w, dy and the saved rstd
  layer_backward,  // layernorm_rows_bwd: dx, dw, db from x, w, dy and the saved mean and rstd
};
std::string row_norm_graph_name(RowNormGraph g);  // "rms_forward", ...

// What a plan is built for: the graph, the rows and the storage of the non-statistics tensors.
struct RowNormShape {
  RowNormGraph graph = RowNormGraph::rms_forward;
  std::int64_t m = 0, n = 0;
  DType storage = DType::f32;  // f32, bf16 or f16 (storage_type of the problem's dtype)

  auto key() const { return std::tuple(graph, m, n, storage); }
  bool operator<(const RowNormShape& o) const { return key() < o.key(); }
  std::string describe() const;  // "rms_forward M=7 N=1000 bf16"
};

// The tensors of the graphs; a graph's unique ids are these values.
enum class RowNormTensor : std::int64_t { x = 1, scale, bias, epsilon, mean, inv_variance, y, dy, dx, dscale, dbias };
std::string row_norm_tensor_name(RowNormTensor t);

// The tensors one graph passes, in uid order. `training` matters for rms_forward only: with it
// cuDNN also writes inv_variance (layer_forward always runs in the training phase).
std::vector<RowNormTensor> row_norm_tensors(RowNormGraph g, bool training);

// How tensor t of a graph over (M, N) is described to cuDNN: dims, strides, data type, passing.
cudnn_backend::TensorSpec row_norm_tensor_spec(RowNormTensor t, std::int64_t m, std::int64_t n, DType storage);

cudnnDataType_t cudnn_data_type(DType storage);  // FLOAT, BFLOAT16, HALF; throws UsageError for tf32

// The device pointers of one launch. A graph reads and writes only its own tensors (the others
// may be null): mean and rstd are outputs of layer_forward and inputs of the backward graphs.
struct RowNormArgs {
  const void *x = nullptr, *scale = nullptr, *bias = nullptr, *dy = nullptr;
  float *mean = nullptr, *rstd = nullptr;
  void *y = nullptr, *dx = nullptr, *dscale = nullptr, *dbias = nullptr;
  float eps = 0;  // forward graphs
};

// One finalized plan. The constructor asks the heuristics (mode A, then FALLBACK) and throws
// nb::Unsupported with cuDNN's status of every engine config tried when none finalizes.
// rms_forward is planned in the inference phase (no rstd output, which rmsnorm_rows does not
// have); where cuDNN refuses that, in the training phase with rstd written to the workspace.
// With a plan cache, a phase's stored plan is loaded before any phase is searched for, so a
// phase cuDNN refused is not tried again in each process.
// The handle is borrowed: it must outlive the plan; run() binds it to the given stream.
class RowNormPlan {
 public:
  RowNormPlan(cudnnHandle_t handle, const RowNormShape& shape, const cudnn_backend::PlanCacheUse& cache = {});

  const RowNormShape& shape() const { return shape_; }
  bool training() const { return training_; }
  // cuDNN's workspace, then (rms_forward in the training phase) room for rstd, 256-byte aligned.
  std::size_t workspace_bytes() const;
  const std::string& status() const { return status_; }  // "inference: ok (engine N, ...)" and what failed before

  // Launches the plan on `stream`; nothing is allocated on the device. workspace: workspace_bytes().
  void run(cudaStream_t stream, const RowNormArgs& args, void* workspace) const;

 private:
  cudnnHandle_t handle_;
  RowNormShape shape_;
  bool training_ = false;
  std::unique_ptr<cudnn_backend::Descriptor> plan_;
  std::size_t plan_workspace_ = 0;
  std::string status_;
};

}  // namespace nb
