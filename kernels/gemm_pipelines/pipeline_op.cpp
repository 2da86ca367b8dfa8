#include "kernels/gemm_pipelines/pipeline_op.hpp"

#include <cmath>

#include "baselines/cpu/gemm_pipeline_reference.hpp"
#include "baselines/cublas/cublas_gemm.hpp"
#include "kernels/gemm/operands.hpp"

namespace nb::linear {

gemm::Operands operands_of(const Problem& p, const DeviceTensors& t) {
  const Shape s = shape_of(p);
  if (p.dtype == DType::bf16) return {nullptr, nullptr, int(s.m), int(s.n), int(s.k)};
  return {t.in(kX), t.in(kWeight), int(s.m), int(s.n), int(s.k)};
}

Bf16Linear bf16_linear_of(const Problem& p, const DeviceTensors& t) {
  const Shape s = shape_of(p);
  if (p.dtype != DType::bf16) return {{nullptr, nullptr, int(s.m), int(s.n), int(s.k)}, nullptr};
  return {{t.ptr<const __nv_bfloat16>(kX), t.ptr<const __nv_bfloat16>(kWeight), int(s.m), int(s.n), int(s.k)},
          t.ptr<const __nv_bfloat16>(kLinearBias)};
}

Support fp32_operands_support(const Problem& p) {
  if (p.dtype != DType::bf16) return Support::yes();
  return Support::no("its GEMM reads fp32 operands: no bf16 mainloop of it yet (issue 32)");
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
  t.ceiling = p.dtype == DType::bf16 ? kBf16PipelineCeiling : default_tolerance(p.dtype).ceiling;
  return t;
}

Tolerance PipelineOp::operand_rounding(const Problem& p) const {
  if (p.dtype == DType::tf32) {
    const double u = 0x1.0p-11;  // tf32: 10 explicit mantissa bits, round to nearest
    return {1.5 * u, 15.0 * u, 0.5, 0, 0};
  }
  if (p.dtype == DType::bf16) {
    const double u = unit_roundoff(DType::bf16);  // 2^-8: h rounded once (its scale in the statistics' A)
    return {1.25 * u, 8.0 * u, 0.5, 0, 0};
  }
  return {};
}

void ForwardPipelineOp::reference(const Problem& p, const HostTensors& in, ReferenceTensors& out) const {
  const Shape s = shape_of(p);
  reference_from_gemm(p, in, linear_reference(s, in[kX].data(), in[kWeight].data(), in[kLinearBias].data()), out);
}

NamedProblem named_with_bf16(Params params, std::vector<std::string> suites, std::string note) {
  NamedProblem named_problem = named(std::move(params), std::move(suites), std::move(note));
  named_problem.dtypes.push_back(DType::bf16);
  return named_problem;
}

NamedProblem bf16_named(Params params, std::vector<std::string> suites, std::string note) {
  NamedProblem named_problem = named(std::move(params), std::move(suites), std::move(note));
  named_problem.dtypes = {DType::bf16};
  return named_problem;
}

double PipelineOp::reduction_length(const Problem& p) const {
  const Shape s = shape_of(p);
  return gemm_reduction_length(s) / 64.0 + normalization_length(s);
}

namespace {

// The GEMM alone, g = x W^T at the problem's precision, into the workspace: what every variant
// of the problem is measured against. bf16: bf16 operands and output (autocast's linear), fp32
// accumulation.
class GemmCeiling final : public Variant {
 public:
  explicit GemmCeiling(DType precision) : precision_(precision) {}
  std::string name() const override { return "cublas_gemm_" + dtype_name(precision_); }
  std::string kind() const override { return "cublas"; }
  std::string idea() const override {
    if (precision_ == DType::bf16) return "cublasGemmEx, bf16 x and W into a bf16 g, CUBLAS_COMPUTE_32F: x W^T alone";
    return precision_ == DType::tf32 ? "cublasGemmEx, CUBLAS_COMPUTE_32F_FAST_TF32: x W^T alone, no bias"
                                     : "cublasGemmEx, CUBLAS_COMPUTE_32F (IEEE fp32): x W^T alone, no bias";
  }
  std::size_t workspace_bytes(const Problem& p) const override {
    const Shape s = shape_of(p);
    return std::size_t(s.m) * std::size_t(s.n) * sizeof(float);
  }
  void prepare(const Problem&) override { cublas::handle(); }
  void launch(const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t stream) override {
    if (precision_ == DType::bf16) {
      const Bf16Linear lin = bf16_linear_of(p, t);
      cublas::gemm_bf16_out(lin.op.a, lin.op.b, static_cast<__nv_bfloat16*>(ws), lin.op.m, lin.op.n, lin.op.k, stream);
      return;
    }
    const gemm::Operands op = operands_of(p, t);
    cublas::gemm(op.a, op.b, static_cast<float*>(ws), op.m, op.n, op.k, precision_ == DType::tf32, false, stream);
  }

 private:
  DType precision_;
};

}  // namespace

Support naive_support(const Problem& p) {
  if (p.dtype == DType::tf32)
    return Support::no("computes in fp32 FMA, as on the fp32 problem of this shape: that row is this one's naive "
                       "baseline (the same launch twice costs up to 12 s)");
  const Shape s = shape_of(p);
  if (p.dtype == DType::bf16 && double(s.m) * double(s.n) * double(s.k) > kNaiveBf16Products)
    return Support::no("over 2^30 products its launch takes seconds: the fp32 problem's naive row is this one's "
                       "baseline (the bf16 roundings run on every smaller problem)");
  return Support::yes();
}

std::unique_ptr<Variant> PipelineOp::ceiling_kernel(const Problem& p) const {
  return std::make_unique<GemmCeiling>(p.dtype);
}

}  // namespace nb::linear
