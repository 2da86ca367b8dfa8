// lt_epilogue: cuBLASLt's GEMM with its bias epilogue writes g, then our kernels do the rest: up to
// 1024 rows, one CTA per 32-column strip takes the strip's statistics over all M rows (no other
// CTA involved), commits them and normalizes from shared memory (L2#33: one kernel, g read once),
// or hands the folded affine to a row softmax (L2#84: the softmax needs every column's statistics
// first, so two kernels). Taller batches use Welford partials over row chunks. A bf16 problem's g
// is written in bf16, as autocast's linear writes it, and the passes read it so.
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
  // cuBLASLt's workspace, the affine (2N), the statistics' partials past 1024 rows, and for a bf16
  // problem h in bf16 (autocast's linear output) at a 256-byte boundary, as cuBLASLt assumes.
  std::size_t workspace_bytes(const Problem& p) const override {
    const linear::Shape s = linear::shape_of(p);
    const std::size_t h = p.dtype == DType::bf16 ? std::size_t(s.m) * std::size_t(s.n) * sizeof(__nv_bfloat16) : 0;
    return h_offset(int(s.m), int(s.n)) + h;
  }
  void prepare(const Problem& p) override {
    const linear::Shape s = linear::shape_of(p);
    gemm_.prepare(int(s.m), int(s.n), int(s.k), s.dtype);
  }
  void launch(const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t s) override {
    const Args a = args_of(tail_, p, t);
    float* affine = reinterpret_cast<float*>(static_cast<char*>(ws) + cublas::LtBiasGemm::kWorkspaceBytes);
    void* columns_ws = affine + 2 * std::size_t(a.n);
    if (p.dtype != DType::bf16) {
      gemm_.run(a.op.a, a.op.b, a.bias, a.y, ws, s);
      normalize(a, a.y, affine, columns_ws, s);
      return;
    }
    auto* h = reinterpret_cast<__nv_bfloat16*>(static_cast<char*>(ws) + h_offset(a.m, a.n));
    gemm_.run(a.bf16.op.a, a.bf16.op.b, a.bf16.bias, h, ws, s);
    normalize(a, h, affine, columns_ws, s);
  }

 private:
  static std::size_t h_offset(int m, int n) {
    const std::size_t end = cublas::LtBiasGemm::kWorkspaceBytes + 2 * std::size_t(n) * sizeof(float) +
                            linear::bn_columns_workspace_bytes(m, n);
    return (end + 255) / 256 * 256;
  }
  // BatchNorm of g (y itself for fp32 and tf32, the bf16 h otherwise) into y, or its affine and
  // the row softmax.
  template <class In>
  void normalize(const Args& a, const In* g, float* affine, void* columns_ws, cudaStream_t s) const {
    if (tail_ == BnTail::normalize) {
      linear::launch_bn_columns(g, a.y, a.column_scale, a.bn, a.m, a.n, s, columns_ws);
      return;
    }
    linear::launch_bn_columns(g, a.y, nullptr, a.bn, a.m, a.n, s, columns_ws, a.post_scale, affine);
    linear::launch_softmax_rows(g, a.y, affine, a.m, a.n, s);
  }

  BnTail tail_;
  cublas::LtBiasGemm gemm_;
};

}  // namespace

std::unique_ptr<Variant> make_lt_epilogue_variant(BnTail tail) { return std::make_unique<LtEpilogue>(tail); }

}  // namespace nb::gemm_bn
