// The `cudnn` variant of a row-norm op (norm_cudnn_variant.hpp).
#include "baselines/cudnn/norm_cudnn_variant.hpp"

#include <string>
#include <utility>

#include "baselines/cudnn/plan_cache.hpp"
#include "harness/errors.hpp"

namespace nb {
namespace {

std::string idea_of(RowNormGraph g) {
  switch (g) {
    case RowNormGraph::rms_forward:
      return "cuDNN backend graph: NORM_FORWARD in CUDNN_RMS_NORM mode, inference phase (training phase with "
             "rstd in the workspace where cuDNN refuses it); one plan per shape and dtype, built in prepare";
    case RowNormGraph::layer_forward:
      return "cuDNN backend graph: NORM_FORWARD in CUDNN_LAYER_NORM mode, training phase (writes mean and "
             "inv_variance = rstd); one plan per shape and dtype, built in prepare";
    case RowNormGraph::rms_backward:
      return "cuDNN backend graph: NORM_BACKWARD in CUDNN_RMS_NORM mode from the saved rstd (dx, dscale); "
             "one plan per shape and dtype, built in prepare";
    case RowNormGraph::layer_backward:
      return "cuDNN backend graph: NORM_BACKWARD in CUDNN_LAYER_NORM mode from the saved mean and rstd (dx, "
             "dscale, dbias); one plan per shape and dtype, built in prepare";
  }
  return "";
}

class RowNormCudnn final : public Variant, public UsesPlanCache {
 public:
  RowNormCudnn(RowNormGraph graph, RowNormBinding bind) : graph_(graph), bind_(std::move(bind)) {}

  std::string name() const override { return "cudnn"; }
  std::string kind() const override { return "cudnn"; }
  std::string idea() const override { return idea_of(graph_); }

  // A refusal cuDNN gave for this shape and dtype before, with its statuses.
  Support supports(const Problem& p) const override {
    if (graph_ == RowNormGraph::layer_backward && p.dim("n") == 1)
      return Support::no("at N = 1 LayerNorm's dx is exactly 0, and cuDNN's backward leaves the rounding of dy * w "
                         "times rstd there (-4.5e-6 at rstd 316 on the H100), which no relative bound can judge");
    if (const std::string* why = plans_.refusal(row_norm_shape_of(graph_, p))) return Support::no(*why);
    return Support::yes();
  }
  std::size_t workspace_bytes(const Problem& p) const override {
    const RowNormPlan* plan = plans_.find(row_norm_shape_of(graph_, p));
    return plan ? plan->workspace_bytes() : 0;
  }
  void prepare(const Problem& p) override {
    const RowNormShape shape = row_norm_shape_of(graph_, p);
    plans_.prepare(shape, [&shape](cudnnHandle_t handle, const cudnn_backend::PlanCacheUse& cache) {
      return std::make_unique<RowNormPlan>(handle, shape, cache);
    });
  }
  void use_plan_cache(const PlanCacheSetting& setting) override { plans_.use_plan_cache(setting); }
  std::vector<PlanEvent> take_plan_events() override { return plans_.take_events(); }
  void open_library() override { plans_.open(); }
  std::unique_ptr<UsesPlanCache> planning_twin() const override { return std::make_unique<RowNormCudnn>(graph_, bind_); }
  void plan_only(const Problem& p) override { prepare(p); }  // prepare() builds the plan alone
  void launch(const Problem& p, const DeviceTensors& t, void* workspace, cudaStream_t stream) override {
    const RowNormPlan* plan = plans_.find(row_norm_shape_of(graph_, p));
    if (!plan) throw Unsupported("the cuDNN plan of " + p.id() + " was not prepared");
    plan->run(stream, bind_(p, t), workspace);
  }

 private:
  RowNormGraph graph_;
  RowNormBinding bind_;
  cudnn_backend::CudnnPlanCache<RowNormShape, RowNormPlan> plans_;
};

}  // namespace

RowNormShape row_norm_shape_of(RowNormGraph graph, const Problem& p) {
  return {graph, p.dim("m"), p.dim("n"), storage_type(p.dtype)};
}

std::unique_ptr<Variant> make_row_norm_cudnn_variant(RowNormGraph graph, RowNormBinding bind) {
  return std::make_unique<RowNormCudnn>(graph, std::move(bind));
}

}  // namespace nb
