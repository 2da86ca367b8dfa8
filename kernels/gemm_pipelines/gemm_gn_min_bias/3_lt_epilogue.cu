// lt_epilogue: cuBLASLt's GEMM with its bias epilogue writes g, then a CTA per row normalizes
// each group and keeps only the row minimum (g read once), and a coalesced kernel writes the
// (1, N, M, 1) broadcast. A bf16 problem's g is written in bf16, as autocast's linear writes it.
#include "baselines/cublas/cublas_gemm.hpp"
#include "kernels/gemm_pipelines/gemm_gn_min_bias/spec.hpp"
#include "kernels/gemm_pipelines/linear_shape.hpp"
#include "kernels/gemm_pipelines/post_gemm.hpp"

namespace nb::gemm_gn_min_bias {
namespace {

class LtEpilogue final : public Variant {
 public:
  std::string name() const override { return "lt_epilogue"; }
  std::string kind() const override { return "fused"; }
  std::string idea() const override {
    return "cuBLASLt GEMM with CUBLASLT_EPILOGUE_BIAS, then GroupNorm + row min (a CTA per row, g read once) and "
           "the coalesced broadcast write";
  }
  // cuBLASLt's workspace, the row minima (M), then g at a 256-byte boundary (cuBLASLt assumes
  // one): fp32, or bf16 for a bf16 problem (autocast's linear output).
  std::size_t workspace_bytes(const Problem& p) const override {
    const linear::Shape s = linear::shape_of(p);
    return g_offset(int(s.m)) + std::size_t(s.m) * std::size_t(s.n) * dtype_size(storage_type(p.dtype));
  }
  void prepare(const Problem& p) override {
    const linear::Shape s = linear::shape_of(p);
    gemm_.prepare(int(s.m), int(s.n), int(s.k), s.dtype);
  }
  void launch(const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t s) override {
    const Args a = args_of(p, t);
    float* row_min = reinterpret_cast<float*>(static_cast<char*>(ws) + cublas::LtBiasGemm::kWorkspaceBytes);
    void* g = static_cast<char*>(ws) + g_offset(a.m);
    if (p.dtype != DType::bf16) {
      gemm_.run(a.op.a, a.op.b, a.bias, g, ws, s);
      linear::launch_groupnorm_min_rows(static_cast<const float*>(g), a.gamma, a.beta, a.add_bias, a.out, row_min,
                                        a.m, a.n, a.groups, a.eps, s);
      return;
    }
    gemm_.run(a.bf16.op.a, a.bf16.op.b, a.bf16.bias, g, ws, s);
    linear::launch_groupnorm_min_rows(static_cast<const __nv_bfloat16*>(g), a.gamma, a.beta, a.add_bias, a.out,
                                      row_min, a.m, a.n, a.groups, a.eps, s);
  }

 private:
  static std::size_t g_offset(int m) {
    return (cublas::LtBiasGemm::kWorkspaceBytes + std::size_t(m) * sizeof(float) + 255) / 256 * 256;
  }
  cublas::LtBiasGemm gemm_;
};

}  // namespace

std::unique_ptr<Variant> make_lt_epilogue_variant() { return std::make_unique<LtEpilogue>(); }

}  // namespace nb::gemm_gn_min_bias
