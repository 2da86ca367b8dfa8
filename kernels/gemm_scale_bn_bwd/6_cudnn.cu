// cudnn: our one pass for the column gradients and dg's coefficients, then cuDNN's runtime
// fusion runs dx = dg W and dW = dg^T x with dg made in a pointwise prologue of each matmul
// (baselines/cudnn/matmul_prologue_cudnn). Where cuDNN finalizes no such plan, the variant
// declines with the status of every graph tried.
#include <map>
#include <tuple>

#include "baselines/cudnn/matmul_prologue_cudnn.hpp"
#include "harness/library_check.hpp"
#include "kernels/gemm_pipeline_common/linear_shape.hpp"
#include "kernels/gemm_scale_bn_bwd/backward_passes.hpp"

namespace nb::bn_backward {
namespace {

class CudnnPrologue final : public Variant {
 public:
  ~CudnnPrologue() override {
    plans_.clear();
    if (handle_) cudnnDestroy(handle_);
  }
  std::string name() const override { return "cudnn"; }
  std::string kind() const override { return "cudnn"; }
  std::string idea() const override {
    return "one pass for the column gradients and dg's affine, then two cuDNN graphs: a pointwise prologue "
           "making dg from dy and g, fused into each matmul (dx = dg W, dW = dg^T x)";
  }
  std::size_t workspace_bytes(const Problem& p) const override {
    const auto it = plans_.find(key_of(p));
    const linear::Shape s = linear::shape_of(p);
    const std::size_t cudnn = it == plans_.end() ? 0 : aligned(it->second->workspace_bytes());
    return cudnn + column_gradients_workspace_bytes(int(s.m), int(s.n));
  }
  void prepare(const Problem& p) override {
    if (!handle_) NB_CUDNN_CHECK(cudnnCreate(&handle_));
    const linear::Shape s = linear::shape_of(p);
    const Key key = key_of(p);
    current_ = nullptr;
    if (refusals_.count(key)) throw Unsupported(refusals_[key]);  // probing again would only repeat it
    if (!plans_.count(key)) {
      try {
        plans_[key] =
            std::make_unique<MatmulPrologueGemms>(handle_, PrologueGemmShape{int(s.m), int(s.n), int(s.k), s.tf32()});
      } catch (const Unsupported& e) {
        refusals_[key] = e.what();
        throw;
      }
    }
    current_ = plans_[key].get();
  }
  void launch(const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t s) override {
    if (!current_) throw Unsupported("cuDNN matmul prologue was not prepared");
    const Args a = args_of(p, t);
    const std::size_t cudnn_bytes = aligned(current_->workspace_bytes());
    const DgCoefficients k = launch_column_gradients(a, static_cast<char*>(ws) + cudnn_bytes, s);
    current_->run(s, {a.dy, a.g, k.a, k.b, k.c, k.shift}, a.weight, a.x, a.dx, a.dweight,
                  cudnn_bytes > 0 ? ws : nullptr);
  }

 private:
  using Key = std::tuple<std::int64_t, std::int64_t, std::int64_t, bool>;
  static Key key_of(const Problem& p) {
    const linear::Shape s = linear::shape_of(p);
    return {s.m, s.n, s.k, s.tf32()};
  }
  static std::size_t aligned(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

  cudnnHandle_t handle_ = nullptr;
  std::map<Key, std::unique_ptr<MatmulPrologueGemms>> plans_;
  std::map<Key, std::string> refusals_;
  MatmulPrologueGemms* current_ = nullptr;
};

}  // namespace

std::unique_ptr<Variant> make_cudnn() { return std::make_unique<CudnnPrologue>(); }

}  // namespace nb::bn_backward
