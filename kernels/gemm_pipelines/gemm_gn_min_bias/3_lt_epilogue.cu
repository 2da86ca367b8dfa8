// lt_epilogue: cuBLASLt's GEMM with its bias epilogue writes g, then a CTA per row normalizes
// each group and keeps only the row minimum (g read once), and a coalesced kernel writes the
// (1, N, M, 1) broadcast.
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
  std::size_t workspace_bytes(const Problem& p) const override {
    const linear::Shape s = linear::shape_of(p);
    return cublas::LtBiasGemm::kWorkspaceBytes +
           (std::size_t(s.m) * std::size_t(s.n) + std::size_t(s.m) + std::size_t(s.n)) * sizeof(float);
  }
  void prepare(const Problem& p) override {
    const linear::Shape s = linear::shape_of(p);
    gemm_.prepare(int(s.m), int(s.n), int(s.k), s.dtype);
  }
  void launch(const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t s) override {
    const Args a = args_of(p, t);
    float* g = reinterpret_cast<float*>(static_cast<char*>(ws) + cublas::LtBiasGemm::kWorkspaceBytes);
    float* row_min = g + std::size_t(a.m) * std::size_t(a.n);
    const bool bf16 = p.dtype == DType::bf16;
    gemm_.run(bf16 ? static_cast<const void*>(a.bf16.op.a) : a.op.a, bf16 ? static_cast<const void*>(a.bf16.op.b) : a.op.b,
              linear::fp32_bias(p, a.bias, a.bf16, row_min + a.m, s), g, ws, s);
    linear::launch_groupnorm_min_rows(g, a.gamma, a.beta, a.add_bias, a.out, row_min, a.m, a.n, a.groups, a.eps, s);
  }

 private:
  cublas::LtBiasGemm gemm_;
};

}  // namespace

std::unique_ptr<Variant> make_lt_epilogue_variant() { return std::make_unique<LtEpilogue>(); }

}  // namespace nb::gemm_gn_min_bias
