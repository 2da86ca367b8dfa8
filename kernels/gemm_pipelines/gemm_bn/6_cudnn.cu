// cudnn: cuDNN's runtime fusion engine runs the GEMM with its bias and scale epilogue and, where
// the engine takes them, the column sums and sums of squares (baselines/cudnn/matmul_fusion_cudnn);
// our kernels commit those statistics (E[h^2] - E[h]^2, so `offset` data is not claimed) and
// normalize, or take the statistics themselves when cuDNN fuses no reduction. A bf16 problem's
// graph reads x, W and b in bf16 and writes h in fp32, as wgmma_epilogue keeps it.
#include <vector>

#include "baselines/cudnn/matmul_fusion_cudnn.hpp"
#include "harness/cuda_check.hpp"
#include "harness/library_check.hpp"
#include "kernels/gemm_pipelines/gemm_bn/pipeline.hpp"
#include "kernels/gemm_pipelines/cudnn_plans.hpp"
#include "kernels/gemm_pipelines/linear_shape.hpp"
#include "kernels/gemm_pipelines/post_gemm.hpp"

namespace nb::gemm_bn {
namespace {

class CudnnMatmulFusion final : public Variant, public UsesPlanCache {
 public:
  explicit CudnnMatmulFusion(BnTail tail) : tail_(tail) {}
  std::string name() const override { return "cudnn"; }
  std::string kind() const override { return "cudnn"; }
  std::string idea() const override {
    return "cuDNN graph: matmul + bias + scale (+ column sum and sum of squares where the runtime fusion engine "
           "takes them; bf16: x, W, b read in bf16, h written in fp32), then our commit and normalize / softmax";
  }
  // Plans are built in prepare(), which runs before any allocation for the problem.
  std::size_t workspace_bytes(const Problem& p) const override {
    const MatmulBiasScaleStats* plan = plans_.find(p);
    if (!plan) return 0;
    return plans_.aligned(plan->workspace_bytes()) + extra_bytes(p);
  }
  void prepare(const Problem& p) override {
    const linear::Shape s = linear::shape_of(p);
    if (ones_.bytes() < std::size_t(s.n) * sizeof(float)) {  // L2#84 has no column scale: multiply by 1
      ones_ = DeviceBuffer(std::size_t(s.n) * sizeof(float));
      const std::vector<float> ones(std::size_t(s.n), 1.0f);
      NB_CUDA_CHECK(cudaMemcpy(ones_.get(), ones.data(), ones_.bytes(), cudaMemcpyHostToDevice));
      // A pageable copy may still be in flight when cudaMemcpy returns, and the launch's
      // non-blocking stream does not wait for the default stream.
      NB_CUDA_CHECK(cudaStreamSynchronize(nullptr));
    }
    plan_only(p);
  }
  void use_plan_cache(const PlanCacheSetting& setting) override { plans_.use_plan_cache(setting); }
  std::vector<PlanEvent> take_plan_events() override { return plans_.take_events(); }
  void open_library() override { plans_.open(); }
  std::unique_ptr<UsesPlanCache> planning_twin() const override { return std::make_unique<CudnnMatmulFusion>(tail_); }
  void plan_only(const Problem& p) override {
    plans_.prepare(p, [](cudnnHandle_t handle, const linear::Shape& shape, const cudnn_backend::PlanCacheUse& cache) {
      return std::make_unique<MatmulBiasScaleStats>(
          handle, MatmulFusionShape{int(shape.m), int(shape.n), int(shape.k), shape.tf32(), shape.dtype == DType::bf16},
          cache);
    });
  }
  void launch(const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t s) override {
    const MatmulBiasScaleStats& plan = plans_.current();
    const Args a = args_of(tail_, p, t);
    char* extra = static_cast<char*>(ws) + plans_.aligned(plan.workspace_bytes());
    float* sum = reinterpret_cast<float*>(extra);
    float* sumsq = sum + a.n;
    float* affine = sumsq + a.n;
    const float* scale = a.column_scale ? a.column_scale : ones_.as<float>();
    // A bf16 problem's x, W and b are in a.bf16 (a.op and a.bias are null then).
    const bool bf16 = p.dtype == DType::bf16;
    const void* x = bf16 ? static_cast<const void*>(a.bf16.op.a) : a.op.a;
    const void* w = bf16 ? static_cast<const void*>(a.bf16.op.b) : a.op.b;
    const void* bias = bf16 ? static_cast<const void*>(a.bf16.bias) : a.bias;
    plan.run(s, x, w, bias, scale, a.y, sum, sumsq, plan.workspace_bytes() ? ws : nullptr);
    if (plan.has_sum() && plan.has_sumsq()) {
      linear::launch_commit_column_sums(sum, sumsq, a.m, a.bn, a.post_scale, affine, a.n, s);
    } else if (tail_ == BnTail::normalize) {  // h is already scaled
      linear::launch_bn_columns(a.y, a.y, nullptr, a.bn, a.m, a.n, s, affine + 2 * a.n);
      return;
    } else {
      linear::launch_bn_columns(a.y, a.y, nullptr, a.bn, a.m, a.n, s, affine + 2 * a.n, a.post_scale, affine);
    }
    finish_in_place(a, affine, s);
  }

 private:
  // Column sums, sums of squares and the affine (4N floats) follow cuDNN's own workspace, then
  // the statistics' own workspace where cuDNN fuses no column sums.
  static std::size_t extra_bytes(const Problem& p) {
    const linear::Shape s = linear::shape_of(p);
    return 4 * std::size_t(s.n) * sizeof(float) + linear::bn_columns_workspace_bytes(int(s.m), int(s.n));
  }

  BnTail tail_;
  linear::CudnnPlans<MatmulBiasScaleStats> plans_;
  DeviceBuffer ones_;
};

}  // namespace

std::unique_ptr<Variant> make_cudnn_variant(BnTail tail) { return std::make_unique<CudnnMatmulFusion>(tail); }

}  // namespace nb::gemm_bn
