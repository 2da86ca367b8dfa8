#include "kernels/gemm_pipelines/pipeline_op.hpp"

#include <cmath>

#include "baselines/cublas/cublas_gemm.hpp"
#include "kernels/gemm/operands.hpp"

namespace nb::linear {

gemm::Operands operands_of(const Problem& p, const DeviceTensors& t) {
  const Shape s = shape_of(p);
  return {t.in(kX), t.in(kWeight), int(s.m), int(s.n), int(s.k)};
}

namespace {
float linear_bound(const Shape& s) { return float(1.0 / std::sqrt(double(s.k))); }
}  // namespace

std::vector<InputDraw> linear_operand_draws(const Shape& s, Distribution d) {
  return {InputDraw::of(kX, d, 1), InputDraw::uniform(kWeight, -linear_bound(s), linear_bound(s), 2)};
}

InputDraw linear_bias_draw(const Shape& s) {
  return InputDraw::uniform(kLinearBias, -linear_bound(s), linear_bound(s), 3);
}

std::vector<InputDraw> linear_draws(const Shape& s, Distribution d) {
  std::vector<InputDraw> draws = linear_operand_draws(s, d);
  draws.push_back(linear_bias_draw(s));
  return draws;
}

void draw_signed_uniform(std::vector<float>& v, float lo, float hi, std::uint64_t seed, std::uint32_t magnitude_salt,
                         std::uint32_t sign_salt) {
  draw_uniform(v, lo, hi, seed, magnitude_salt);
  std::vector<float> sign(v.size());
  draw_uniform(sign, -1.0f, 1.0f, seed, sign_salt);
  for (std::size_t i = 0; i < sign.size(); ++i)
    if (sign[i] < 0) v[i] = -v[i];
}

Tolerance PipelineOp::tolerance(const Problem& p) const {
  Tolerance t = default_tolerance(DType::f32);
  t.floor_fraction = 0.5;
  t.ceiling = default_tolerance(p.dtype).ceiling;
  return t;
}

Tolerance PipelineOp::operand_rounding(const Problem& p) const {
  if (p.dtype != DType::tf32) return {};
  const double u = 0x1.0p-11;  // tf32: 10 explicit mantissa bits, round to nearest
  return {1.5 * u, 15.0 * u, 0.5, 0, 0};
}

double PipelineOp::reduction_length(const Problem& p) const {
  const Shape s = shape_of(p);
  return gemm_reduction_length(s) / 64.0 + normalization_length(s);
}

namespace {

// The GEMM alone, g = x W^T at the problem's precision, into the workspace: what every variant
// of the problem is measured against.
class GemmCeiling final : public Variant {
 public:
  explicit GemmCeiling(bool tf32) : tf32_(tf32) {}
  std::string name() const override { return tf32_ ? "cublas_gemm_tf32" : "cublas_gemm_fp32"; }
  std::string kind() const override { return "cublas"; }
  std::string idea() const override {
    return tf32_ ? "cublasGemmEx, CUBLAS_COMPUTE_32F_FAST_TF32: x W^T alone, no bias"
                 : "cublasGemmEx, CUBLAS_COMPUTE_32F (IEEE fp32): x W^T alone, no bias";
  }
  std::size_t workspace_bytes(const Problem& p) const override {
    const Shape s = shape_of(p);
    return std::size_t(s.m) * std::size_t(s.n) * sizeof(float);
  }
  void prepare(const Problem&) override { cublas::handle(); }
  void launch(const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t stream) override {
    const gemm::Operands op = operands_of(p, t);
    cublas::gemm(op.a, op.b, static_cast<float*>(ws), op.m, op.n, op.k, tf32_, false, stream);
  }

 private:
  bool tf32_;
};

}  // namespace

Support naive_support(const Problem& p) {
  if (p.dtype != DType::tf32) return Support::yes();
  return Support::no("computes in fp32 FMA, as on the fp32 problem of this shape: that row is this one's naive "
                     "baseline (the same launch twice costs up to 12 s)");
}

std::unique_ptr<Variant> PipelineOp::ceiling_kernel(const Problem& p) const {
  return std::make_unique<GemmCeiling>(p.dtype == DType::tf32);
}

}  // namespace nb::linear
