// cuDNN's LayerNorm and RMSNorm over rows, planned and run (norm_cudnn.hpp).
#include "baselines/cudnn/norm_cudnn.hpp"

#include <map>
#include <utility>

#include "baselines/library_alignment.hpp"
#include "harness/errors.hpp"
#include "harness/library_check.hpp"

namespace nb {
namespace {

using namespace cudnn_backend;

bool is_forward(RowNormGraph g) { return g == RowNormGraph::rms_forward || g == RowNormGraph::layer_forward; }
bool is_rms(RowNormGraph g) { return g == RowNormGraph::rms_forward || g == RowNormGraph::rms_backward; }

// The phases a graph is planned in, preferred first (backward graphs have none: one attempt).
std::vector<bool> phases_to_try(RowNormGraph g) {
  switch (g) {
    case RowNormGraph::rms_forward: return {false, true};  // inference, else training (rstd to the workspace)
    case RowNormGraph::layer_forward: return {true};       // mean and rstd are the op's outputs
    default: return {false};
  }
}

Graph build_graph(cudnnHandle_t handle, const RowNormShape& s, bool training) {
  Graph g;
  std::map<RowNormTensor, const Descriptor*> desc;
  for (RowNormTensor t : row_norm_tensors(s.graph, training))
    desc[t] = &g.keep(tensor(row_norm_tensor_spec(t, s.m, s.n, s.storage)));
  const auto get = [&desc](RowNormTensor t) -> const Descriptor* {
    const auto it = desc.find(t);
    return it == desc.end() ? nullptr : it->second;
  };
  using T = RowNormTensor;
  const cudnnBackendNormMode_t mode = is_rms(s.graph) ? CUDNN_RMS_NORM : CUDNN_LAYER_NORM;
  if (is_forward(s.graph)) {
    const cudnnBackendNormFwdPhase_t phase = training ? CUDNN_NORM_FWD_TRAINING : CUDNN_NORM_FWD_INFERENCE;
    g.add_op(norm_forward_op(mode, phase,
                             {get(T::x), get(T::scale), get(T::bias), get(T::epsilon), get(T::mean),
                              get(T::inv_variance), get(T::y)}));
  } else {
    g.add_op(norm_backward_op(mode, {get(T::x), get(T::dy), get(T::scale), get(T::mean), get(T::inv_variance),
                                     get(T::dx), get(T::dscale), get(T::dbias)}));
  }
  g.finalize(handle);
  return g;
}

constexpr std::size_t aligned256(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

}  // namespace

std::string row_norm_graph_name(RowNormGraph g) {
  switch (g) {
    case RowNormGraph::rms_forward: return "rms_forward";
    case RowNormGraph::layer_forward: return "layer_forward";
    case RowNormGraph::rms_backward: return "rms_backward";
    case RowNormGraph::layer_backward: return "layer_backward";
  }
  return "?";
}

std::string RowNormShape::describe() const {
  return row_norm_graph_name(graph) + " M=" + std::to_string(m) + " N=" + std::to_string(n) + " " +
         dtype_name(storage);
}

std::string row_norm_tensor_name(RowNormTensor t) {
  switch (t) {
    case RowNormTensor::x: return "x";
    case RowNormTensor::scale: return "scale";
    case RowNormTensor::bias: return "bias";
    case RowNormTensor::epsilon: return "epsilon";
    case RowNormTensor::mean: return "mean";
    case RowNormTensor::inv_variance: return "inv_variance";
    case RowNormTensor::y: return "y";
    case RowNormTensor::dy: return "dy";
    case RowNormTensor::dx: return "dx";
    case RowNormTensor::dscale: return "dscale";
    case RowNormTensor::dbias: return "dbias";
  }
  return "?";
}

std::vector<RowNormTensor> row_norm_tensors(RowNormGraph g, bool training) {
  using T = RowNormTensor;
  switch (g) {
    case RowNormGraph::rms_forward:
      if (training) return {T::x, T::scale, T::epsilon, T::inv_variance, T::y};
      return {T::x, T::scale, T::epsilon, T::y};
    case RowNormGraph::layer_forward: return {T::x, T::scale, T::bias, T::epsilon, T::mean, T::inv_variance, T::y};
    case RowNormGraph::rms_backward: return {T::x, T::scale, T::inv_variance, T::dy, T::dx, T::dscale};
    case RowNormGraph::layer_backward:
      return {T::x, T::scale, T::mean, T::inv_variance, T::dy, T::dx, T::dscale, T::dbias};
  }
  return {};
}

cudnnDataType_t cudnn_data_type(DType storage) {
  switch (storage) {
    case DType::f32: return CUDNN_DATA_FLOAT;
    case DType::bf16: return CUDNN_DATA_BFLOAT16;
    case DType::f16: return CUDNN_DATA_HALF;
    case DType::tf32: break;
  }
  throw UsageError("cuDNN norm tensors: " + dtype_name(storage) + " is a precision, not a storage type");
}

TensorSpec row_norm_tensor_spec(RowNormTensor t, std::int64_t m, std::int64_t n, DType storage) {
  const auto uid = static_cast<std::int64_t>(t);
  switch (t) {
    case RowNormTensor::x:
    case RowNormTensor::y:
    case RowNormTensor::dy:
    case RowNormTensor::dx: return {uid, {m, n, 1, 1}, {n, 1, n, n}, cudnn_data_type(storage)};
    case RowNormTensor::scale:
    case RowNormTensor::bias:
    case RowNormTensor::dscale:
    case RowNormTensor::dbias: return {uid, {1, n, 1, 1}, {n, 1, n, n}, cudnn_data_type(storage)};
    case RowNormTensor::mean:
    case RowNormTensor::inv_variance: return {uid, {m, 1, 1, 1}, {1, 1, 1, 1}, CUDNN_DATA_FLOAT};
    case RowNormTensor::epsilon:
      return {uid, {1, 1, 1, 1}, {1, 1, 1, 1}, CUDNN_DATA_FLOAT, TensorPassing::by_value};
  }
  throw UsageError("row_norm_tensor_spec: unknown tensor " + std::to_string(uid));
}

RowNormPlan::RowNormPlan(cudnnHandle_t handle, const RowNormShape& shape, const PlanCacheUse& cache)
    : handle_(handle), shape_(shape) {
  if (shape.m < 1 || shape.n < 1)
    throw UsageError("RowNormPlan: M and N must be positive (" + shape.describe() + ")");
  cudnn_data_type(shape.storage);  // a precision instead of a storage type is a caller's error
  const std::vector<bool> phases = phases_to_try(shape.graph);
  const auto phase_name = [&](bool training) {
    return is_forward(shape.graph) ? std::string(training ? "training" : "inference") : std::string();
  };
  std::vector<GraphChoice> choices;
  for (bool training : phases)
    choices.push_back({[&, training] { return build_graph(handle, shape, training); },
                       shape.describe() + (is_forward(shape.graph) ? ", " + phase_name(training) + " phase" : "")});
  PlannedChoice chosen = plan_first_of(handle, choices, /*allow_tf32=*/false, cache);
  std::string tried;
  for (const auto& [choice, status] : chosen.statuses)
    tried += (tried.empty() ? "" : "; ") + (is_forward(shape.graph) ? phase_name(phases[choice]) + ": " : "") + status;
  if (!chosen.planned.plan) throw Unsupported("cuDNN plans no " + shape.describe() + " graph: " + tried);
  plan_ = std::move(chosen.planned.plan);
  plan_workspace_ = chosen.planned.workspace;
  training_ = phases[chosen.index];
  status_ = tried;
}

std::size_t RowNormPlan::workspace_bytes() const {
  if (shape_.graph == RowNormGraph::rms_forward && training_)
    return aligned256(plan_workspace_) + std::size_t(shape_.m) * sizeof(float);
  return plan_workspace_;
}

void RowNormPlan::run(cudaStream_t stream, const RowNormArgs& args, void* workspace) const {
  if (workspace_bytes() > 0 && !workspace)
    throw UsageError("RowNormPlan::run: " + shape_.describe() + " needs a workspace of " +
                     std::to_string(workspace_bytes()) + " bytes");
  float eps = args.eps;  // by value: cuDNN reads it while the call enqueues the launch
  float* rstd = args.rstd;
  if (shape_.graph == RowNormGraph::rms_forward && training_)
    rstd = reinterpret_cast<float*>(static_cast<char*>(workspace) + aligned256(plan_workspace_));
  const auto pointer = [&](RowNormTensor t) -> void* {
    switch (t) {
      case RowNormTensor::x: return const_cast<void*>(args.x);
      case RowNormTensor::scale: return const_cast<void*>(args.scale);
      case RowNormTensor::bias: return const_cast<void*>(args.bias);
      case RowNormTensor::epsilon: return &eps;
      case RowNormTensor::mean: return args.mean;
      case RowNormTensor::inv_variance: return rstd;
      case RowNormTensor::y: return args.y;
      case RowNormTensor::dy: return const_cast<void*>(args.dy);
      case RowNormTensor::dx: return args.dx;
      case RowNormTensor::dscale: return args.dscale;
      case RowNormTensor::dbias: return args.dbias;
    }
    return nullptr;
  };
  std::vector<int64_t> uids;
  std::vector<void*> pointers;
  for (RowNormTensor t : row_norm_tensors(shape_.graph, training_)) {
    void* p = pointer(t);
    if (!p)
      throw UsageError("RowNormPlan::run: " + shape_.describe() + " needs " + row_norm_tensor_name(t) + "; it is null");
    // epsilon is passed by value, from the host; the name is built only for the refusal (a launch is timed)
    if (t != RowNormTensor::epsilon && !library_aligned(p))
      require_library_alignment("cuDNN's normalization graph", {{row_norm_tensor_name(t).c_str(), p}});
    uids.push_back(static_cast<int64_t>(t));
    pointers.push_back(p);
  }
  NB_CUDNN_CHECK(cudnnSetStream(handle_, stream));
  execute_plan(handle_, plan_->get(), std::move(uids), std::move(pointers),
               plan_workspace_ > 0 ? workspace : nullptr);
}

}  // namespace nb
