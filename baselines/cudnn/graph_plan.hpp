#pragma once
// cuDNN backend graphs, built and planned: tensor and operation descriptors for the graphs the
// baselines build (matmul, pointwise, column reduction, norm forward and backward), and
// plan_graph(), which loads the graph's plan from the plan cache when it has one cuDNN accepts,
// else asks the heuristics (mode A, then FALLBACK) for engine configs and finalizes the first
// plan that takes, recording what every config said (plan_search.hpp), and keeps it in the plan
// cache. A refusal is a status string, never an exception.
#include <cudnn.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "baselines/cudnn/backend_descriptor.hpp"
#include "harness/plan_cache/plan_events.hpp"
#include "harness/plan_cache/plan_store.hpp"

namespace nb::cudnn_backend {

using DescPtr = std::unique_ptr<Descriptor>;

// How a graph's tensor is passed: a device pointer in the variant pack, not at all (virtual: it
// lives only inside the plan), or a host pointer to its value (by value: a scalar such as eps).
enum class TensorPassing { device, virtual_, by_value };

// A tensor of any rank and data type, 16-byte aligned (device tensors' base pointers).
struct TensorSpec {
  int64_t uid = 0;
  std::vector<int64_t> dims, strides;
  cudnnDataType_t dtype = CUDNN_DATA_FLOAT;
  TensorPassing passing = TensorPassing::device;
};
DescPtr tensor(const TensorSpec& spec);
// Tensors of rank 3 (fp32 unless dtype says otherwise); virtual ones live only inside the plan.
DescPtr tensor(int64_t uid, std::array<int64_t, 3> dims, std::array<int64_t, 3> strides, bool is_virtual,
               cudnnDataType_t dtype = CUDNN_DATA_FLOAT);
// A matmul graph's precision as its labels name it: bf16 operands, or fp32 ones with TF32 math
// allowed ("tf32") or not ("fp32").
inline const char* operand_precision(bool bf16, bool allow_tf32) {
  return bf16 ? "bf16" : allow_tf32 ? "tf32" : "fp32";
}
DescPtr matmul_op(const Descriptor& a, const Descriptor& b, const Descriptor& c);
DescPtr pointwise_op(cudnnPointwiseMode_t mode, const Descriptor& x, const Descriptor& b, const Descriptor& y);
// Sum of x (1, M, N) over M into y (1, 1, N): the reduced dimensions are those where y is 1.
DescPtr column_sum_op(const Descriptor& x, const Descriptor& y);

// The tensors of a NORM_FORWARD operation. Null where the mode and phase take none: bias in RMS
// mode without one, mean in RMS mode, mean and inv_variance in the inference phase.
struct NormForwardTensors {
  const Descriptor *x = nullptr, *scale = nullptr, *bias = nullptr, *epsilon = nullptr;
  const Descriptor *mean = nullptr, *inv_variance = nullptr, *y = nullptr;
};
DescPtr norm_forward_op(cudnnBackendNormMode_t mode, cudnnBackendNormFwdPhase_t phase, const NormForwardTensors& t);

// The tensors of a NORM_BACKWARD operation (the saved statistics are inputs). Null where the mode
// takes none: mean and dbias in RMS mode.
struct NormBackwardTensors {
  const Descriptor *x = nullptr, *dy = nullptr, *scale = nullptr, *mean = nullptr, *inv_variance = nullptr;
  const Descriptor *dx = nullptr, *dscale = nullptr, *dbias = nullptr;
};
DescPtr norm_backward_op(cudnnBackendNormMode_t mode, const NormBackwardTensors& t);

// An operation graph; its tensors and operations stay alive with it. Its recipe
// (graph->recipe()) describes it whole: the plan cache's key.
struct Graph {
  std::vector<DescPtr> parts;
  std::vector<const Descriptor*> ops;
  DescPtr graph;

  const Descriptor& keep(DescPtr d) {
    parts.push_back(std::move(d));
    return *parts.back();
  }
  void add_op(DescPtr op) { ops.push_back(&keep(std::move(op))); }
  void finalize(cudnnHandle_t handle);  // builds `graph` from the operations added
};

struct PlannedGraph {
  DescPtr plan;  // null when no engine config finalized
  std::size_t workspace = 0;
  // "ok (engine N, ...)" or "failed: ..." with every config's status; then how long building took
  // and what the plan cache did ("loaded from the plan cache in ...: <how it was built>").
  std::string status;
  bool runtime_compiled = false;  // the plan's engine compiles its kernel when the plan is built
};

// Where plan_graph finds and keeps plans, and where it tells what it did (one PlanEvent per call).
struct PlanCacheUse {
  const PlanStore* store = nullptr;          // null: every plan is built
  std::string identity;                      // plan_identity() (plan_serialization.hpp), in every key
  std::vector<PlanEvent>* events = nullptr;  // null: not told
  bool load = true;                          // false: plan_graph looks for no stored plan (its caller did)
};

// With allow_tf32 false, an engine config whose numerical notes say TENSOR_CORE or
// DOWN_CONVERT_INPUTS (cuDNN's marks of TF32 math on fp32 data) is skipped. label names the plan
// in its event, its cache file and the cache's warnings ("rms_forward M=7 N=1000 fp32, inference
// phase"). A plan loaded from the cache is the plan that was built: only the search is skipped.
PlannedGraph plan_graph(cudnnHandle_t handle, const std::function<Graph()>& build, bool allow_tf32,
                        const std::string& label = "", const PlanCacheUse& cache = {});
// One of several graphs that compute the same thing, preferred first (a phase, a fusion rung).
struct GraphChoice {
  std::function<Graph()> build;
  std::string label;  // plan_graph's
};
struct PlannedChoice {
  PlannedGraph planned;      // of the choice taken; a null plan when none plans
  std::size_t index = 0;     // the choice taken (choices.size() when none)
  // (choice, status) of each choice loaded or searched for, in order: the one taken is last.
  std::vector<std::pair<std::size_t, std::string>> statuses;
};
// The first choice that plans. A plan the cache holds for any choice is loaded before any choice
// is searched for, so a choice cuDNN refuses is not searched for again in each process; the
// search then goes through the choices in order (each plan_graph without the load).
PlannedChoice plan_first_of(cudnnHandle_t handle, const std::vector<GraphChoice>& choices, bool allow_tf32,
                            const PlanCacheUse& cache = {});

// Runs a finalized plan on the handle's stream with its variant pack (the tensors by unique id).
void execute_plan(cudnnHandle_t handle, cudnnBackendDescriptor_t plan, std::vector<int64_t> uids,
                  std::vector<void*> pointers, void* workspace);

// An nb::Unsupported message without " from <call> (<file>:<line>)".
std::string brief(const std::string& what);

}  // namespace nb::cudnn_backend
