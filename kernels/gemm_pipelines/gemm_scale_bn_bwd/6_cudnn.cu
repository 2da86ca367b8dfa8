// cudnn: our one pass for the column gradients and dg's coefficients, then cuDNN's runtime
// fusion runs dx = dg W and dW = dg^T x with dg made in a pointwise prologue of each matmul
// (baselines/cudnn/matmul_prologue_cudnn). Where cuDNN finalizes no such plan, the variant
// declines with the status of every graph tried. A bf16 problem's graphs read g, W and x and write
// dx and dW in bf16, with dg rounded to bf16 as autocast's backward rounds it.
#include "baselines/cudnn/matmul_prologue_cudnn.hpp"
#include "kernels/gemm_pipelines/cudnn_plans.hpp"
#include "kernels/gemm_pipelines/gemm_scale_bn_bwd/backward_passes.hpp"

namespace nb::gemm_scale_bn_bwd {
namespace {

class CudnnPrologue final : public Variant, public UsesPlanCache {
 public:
  std::string name() const override { return "cudnn"; }
  std::string kind() const override { return "cudnn"; }
  std::string idea() const override {
    return "one pass for the column gradients and dg's affine, then two cuDNN graphs: a pointwise prologue "
           "making dg from dy and g, fused into each matmul (dx = dg W, dW = dg^T x)";
  }
  std::size_t workspace_bytes(const Problem& p) const override {
    const MatmulPrologueGemms* plan = plans_.find(p);
    if (!plan) return 0;
    const linear::Shape s = linear::shape_of(p);
    return plans_.aligned(plan->workspace_bytes()) + column_gradients_workspace_bytes(int(s.m), int(s.n));
  }
  void prepare(const Problem& p) override {
    plans_.prepare(p, [](cudnnHandle_t handle, const linear::Shape& s, const cudnn_backend::PlanCacheUse& cache) {
      return std::make_unique<MatmulPrologueGemms>(
          handle, PrologueGemmShape{int(s.m), int(s.n), int(s.k), s.tf32(), s.dtype == DType::bf16}, cache);
    });
  }
  void use_plan_cache(const PlanCacheSetting& setting) override { plans_.use_plan_cache(setting); }
  std::vector<PlanEvent> take_plan_events() override { return plans_.take_events(); }
  void open_library() override { plans_.open(); }
  std::unique_ptr<UsesPlanCache> planning_twin() const override { return std::make_unique<CudnnPrologue>(); }
  void plan_only(const Problem& p) override { prepare(p); }  // prepare() builds the plans alone
  void launch(const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t s) override {
    const MatmulPrologueGemms& plan = plans_.current();
    const Args a = args_of(p, t);
    const std::size_t cudnn_bytes = plans_.aligned(plan.workspace_bytes());
    const DgCoefficients k = launch_column_gradients(a, static_cast<char*>(ws) + cudnn_bytes, s);
    void* plan_ws = cudnn_bytes > 0 ? ws : nullptr;
    if (p.dtype == DType::bf16)  // g, W, x, dx and dW are in a.bf16 (null in a then)
      plan.run(s, {a.dy, a.bf16.g, k.a, k.b, k.c, k.shift}, a.bf16.weight, a.bf16.x, a.bf16.dx, a.bf16.dweight,
               plan_ws);
    else
      plan.run(s, {a.dy, a.g, k.a, k.b, k.c, k.shift}, a.weight, a.x, a.dx, a.dweight, plan_ws);
  }

 private:
  linear::CudnnPlans<MatmulPrologueGemms> plans_;
};

}  // namespace

std::unique_ptr<Variant> make_cudnn_variant() { return std::make_unique<CudnnPrologue>(); }

}  // namespace nb::gemm_scale_bn_bwd
