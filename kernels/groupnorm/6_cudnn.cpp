// cuDNN GroupNorm baseline through the backend graph API: one NORM_FORWARD operation in
// CUDNN_GROUP_NORM mode (training phase: statistics from x). The plan is built in prepare();
// a refusal (no engine, NOT_SUPPORTED) becomes nb::Unsupported with cuDNN's status string.
#include <cudnn.h>

#include <memory>
#include <string>
#include <vector>

#include "baselines/cudnn/backend_descriptor.hpp"
#include "harness/library_check.hpp"
#include "kernels/groupnorm/spec.hpp"

namespace nb::groupnorm {
namespace {

using cudnn_backend::Descriptor;

enum Uid : int64_t { kUidX = 1, kUidScale, kUidBias, kUidEps, kUidMean, kUidInvVar, kUidY };

std::unique_ptr<Descriptor> tensor(int64_t uid, std::vector<int64_t> dims, bool by_value = false) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (int i = int(dims.size()) - 2; i >= 0; --i) strides[i] = strides[i + 1] * dims[i + 1];
  auto t = std::make_unique<Descriptor>(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
  const cudnnDataType_t dtype = CUDNN_DATA_FLOAT;
  const int64_t alignment = 16;
  t->set(CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, &dtype)
      .set(CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, dims.data(), int64_t(dims.size()))
      .set(CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, strides.data(), int64_t(strides.size()))
      .set(CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, &uid)
      .set(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, &alignment);
  if (by_value) t->set(CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, &by_value);
  t->finalize();
  return t;
}

class GroupNormCudnn final : public Variant {
 public:
  ~GroupNormCudnn() override {
    plan_.reset();
    if (handle_) cudnnDestroy(handle_);
  }
  std::string name() const override { return "cudnn"; }
  std::string kind() const override { return "cudnn"; }
  std::string idea() const override {
    return "cuDNN backend graph: NORM_FORWARD in CUDNN_GROUP_NORM mode, training phase (plan built in prepare)";
  }
  Support supports(const Problem& p) const override {
    if (shape_of(p).elements() >= (std::int64_t{1} << 31))
      return Support::no("cuDNN norm tensors are limited to < 2^31 elements here");
    return Support::yes();
  }
  std::size_t workspace_bytes(const Problem& p) const override { return stats_bytes(p) + plan_workspace_; }
  void prepare(const Problem& p) override;
  void launch(const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t stream) override;

 private:
  static std::size_t stats_bytes(const Problem& p) {
    return 2 * sizeof(float) * stats_stride(p);
  }
  // mean at stats[0], inverse variance at stats[stride]: 256-byte aligned halves.
  static std::size_t stats_stride(const Problem& p) {
    return (std::size_t(shape_of(p).groups()) + 63) / 64 * 64;
  }
  std::unique_ptr<Descriptor> build_graph(const Problem& p);
  void build_plan(const Descriptor& graph);

  cudnnHandle_t handle_ = nullptr;
  std::unique_ptr<Descriptor> plan_;
  std::size_t plan_workspace_ = 0;
  float eps_ = 0;
};

std::unique_ptr<Descriptor> GroupNormCudnn::build_graph(const Problem& p) {
  const Shape s = shape_of(p);
  auto x = tensor(kUidX, {s.n, s.c, s.h, s.w}), y = tensor(kUidY, {s.n, s.c, s.h, s.w});
  auto scale = tensor(kUidScale, {1, s.c, 1, 1}), bias = tensor(kUidBias, {1, s.c, 1, 1});
  auto mean = tensor(kUidMean, {s.n, s.g, 1, 1}), inv_var = tensor(kUidInvVar, {s.n, s.g, 1, 1});
  auto eps = tensor(kUidEps, {1, 1, 1, 1}, true);
  const cudnnBackendNormMode_t mode = CUDNN_GROUP_NORM;
  const cudnnBackendNormFwdPhase_t phase = CUDNN_NORM_FWD_TRAINING;
  Descriptor op(CUDNN_BACKEND_OPERATION_NORM_FORWARD_DESCRIPTOR);
  op.set(CUDNN_ATTR_OPERATION_NORM_FWD_MODE, CUDNN_TYPE_NORM_MODE, &mode)
      .set(CUDNN_ATTR_OPERATION_NORM_FWD_PHASE, CUDNN_TYPE_NORM_FWD_PHASE, &phase)
      .set_desc(CUDNN_ATTR_OPERATION_NORM_FWD_XDESC, *x)
      .set_desc(CUDNN_ATTR_OPERATION_NORM_FWD_MEAN_DESC, *mean)
      .set_desc(CUDNN_ATTR_OPERATION_NORM_FWD_INV_VARIANCE_DESC, *inv_var)
      .set_desc(CUDNN_ATTR_OPERATION_NORM_FWD_SCALE_DESC, *scale)
      .set_desc(CUDNN_ATTR_OPERATION_NORM_FWD_BIAS_DESC, *bias)
      .set_desc(CUDNN_ATTR_OPERATION_NORM_FWD_EPSILON_DESC, *eps)
      .set_desc(CUDNN_ATTR_OPERATION_NORM_FWD_YDESC, *y);
  op.finalize();
  auto graph = std::make_unique<Descriptor>(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  graph->set(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, &handle_).set_desc(CUDNN_ATTR_OPERATIONGRAPH_OPS, op);
  graph->finalize();
  return graph;
}

// Asks the heuristics for engine configs and keeps the first whose plan finalizes.
void GroupNormCudnn::build_plan(const Descriptor& graph) {
  Descriptor heur(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
  const cudnnBackendHeurMode_t heur_mode = CUDNN_HEUR_MODE_A;
  heur.set_desc(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, graph)
      .set(CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, &heur_mode);
  heur.finalize();
  std::vector<std::unique_ptr<Descriptor>> configs;
  std::vector<cudnnBackendDescriptor_t> raw;
  for (int i = 0; i < 8; ++i) {
    configs.push_back(std::make_unique<Descriptor>(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR));
    raw.push_back(configs.back()->get());
  }
  int64_t count = 0;
  NB_CUDNN_SUPPORTED(cudnnBackendGetAttribute(heur.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                              CUDNN_TYPE_BACKEND_DESCRIPTOR, int64_t(raw.size()), &count, raw.data()));
  if (count == 0) throw Unsupported("cuDNN heuristics returned no engine config for CUDNN_GROUP_NORM");
  std::string last;
  for (int64_t i = 0; i < count; ++i) {
    try {
      auto plan = std::make_unique<Descriptor>(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
      plan->set(CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, &handle_).set_desc(
          CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, *configs[std::size_t(i)]);
      plan->finalize();
      int64_t ws = 0, n = 0;
      NB_CUDNN_CHECK(cudnnBackendGetAttribute(plan->get(), CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE,
                                              CUDNN_TYPE_INT64, 1, &n, &ws));
      plan_workspace_ = std::size_t(ws);
      plan_ = std::move(plan);
      return;
    } catch (const Unsupported& e) {
      last = e.what();
    }
  }
  throw Unsupported("no cuDNN engine config finalizes for CUDNN_GROUP_NORM: " + last);
}

void GroupNormCudnn::prepare(const Problem& p) {
  if (!handle_) NB_CUDNN_CHECK(cudnnCreate(&handle_));
  plan_.reset();
  plan_workspace_ = 0;
  eps_ = float(p.real("eps"));
  build_plan(*build_graph(p));
}

void GroupNormCudnn::launch(const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t stream) {
  if (!plan_) throw Unsupported("cuDNN GroupNorm plan was not built (prepare() failed)");
  NB_CUDNN_CHECK(cudnnSetStream(handle_, stream));
  const std::size_t groups = stats_stride(p);
  float* stats = static_cast<float*>(ws);
  void* ptrs[] = {const_cast<float*>(t.in(kX)), const_cast<float*>(t.in(kGamma)),
                  const_cast<float*>(t.in(kBeta)), &eps_, stats, stats + groups,
                  t.out(kY)};
  const int64_t uids[] = {kUidX, kUidScale, kUidBias, kUidEps, kUidMean, kUidInvVar, kUidY};
  void* plan_ws = static_cast<char*>(ws) + stats_bytes(p);
  Descriptor pack(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
  pack.set(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, uids, 7)
      .set(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, ptrs, 7)
      .set(CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, &plan_ws);
  pack.finalize();
  NB_CUDNN_CHECK(cudnnBackendExecute(handle_, plan_->get(), pack.get()));
}

}  // namespace

std::unique_ptr<Variant> make_cudnn_variant() { return std::make_unique<GroupNormCudnn>(); }

}  // namespace nb::groupnorm
