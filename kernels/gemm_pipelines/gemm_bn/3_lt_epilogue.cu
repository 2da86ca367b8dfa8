// lt_epilogue: cuBLASLt's GEMM with its bias epilogue writes g, then our kernels do the rest: up to
// 1024 rows, one CTA per 32-column strip takes the strip's statistics over all M rows (no other
// CTA involved), commits them and normalizes from shared memory (L2#33: one kernel, g read once),
// or hands the folded affine to a row softmax (L2#84: the softmax needs every column's statistics
// first, so two kernels). Taller batches use Welford partials over row chunks.
#include "baselines/cublas/cublas_gemm.hpp"
#include "kernels/gemm_pipelines/gemm_bn/pipeline.hpp"
#include "kernels/gemm_pipelines/linear_shape.hpp"
#include "kernels/gemm_pipelines/post_gemm.hpp"

namespace nb::gemm_bn {
namespace {

class LtEpilogue final : public Variant {
 public:
  explicit LtEpilogue(BnTail tail) : tail_(tail) {}
  std::string name() const override { return "lt_epilogue"; }
  std::string kind() const override { return "fused"; }
  std::string idea() const override {
    return "cuBLASLt GEMM with CUBLASLT_EPILOGUE_BIAS, then column-strip CTAs: statistics, commit, normalize "
           "(+ row softmax for L2#84)";
  }
  std::size_t workspace_bytes(const Problem& p) const override {
    const linear::Shape s = linear::shape_of(p);
    return cublas::LtBiasGemm::kWorkspaceBytes + 3 * std::size_t(s.n) * sizeof(float) +
           linear::bn_columns_workspace_bytes(int(s.m), int(s.n));
  }
  void prepare(const Problem& p) override {
    const linear::Shape s = linear::shape_of(p);
    gemm_.prepare(int(s.m), int(s.n), int(s.k), s.dtype);
  }
  void launch(const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t s) override {
    const Args a = args_of(tail_, p, t);
    float* affine = reinterpret_cast<float*>(static_cast<char*>(ws) + cublas::LtBiasGemm::kWorkspaceBytes);
    float* bias = affine + 2 * std::size_t(a.n);
    void* columns_ws = bias + std::size_t(a.n);
    const bool bf16 = p.dtype == DType::bf16;
    gemm_.run(bf16 ? static_cast<const void*>(a.bf16.op.a) : a.op.a, bf16 ? static_cast<const void*>(a.bf16.op.b) : a.op.b,
              linear::fp32_bias(p, a.bias, a.bf16, bias, s), a.y, ws, s);
    if (tail_ == BnTail::normalize) {
      linear::launch_bn_columns(a.y, a.column_scale, a.bn, a.m, a.n, s, columns_ws);
      return;
    }
    linear::launch_bn_columns(a.y, nullptr, a.bn, a.m, a.n, s, columns_ws, a.post_scale, affine);
    finish_in_place(a, affine, s);
  }

 private:
  BnTail tail_;
  cublas::LtBiasGemm gemm_;
};

}  // namespace

std::unique_ptr<Variant> make_lt_epilogue_variant(BnTail tail) { return std::make_unique<LtEpilogue>(tail); }

}  // namespace nb::gemm_bn
