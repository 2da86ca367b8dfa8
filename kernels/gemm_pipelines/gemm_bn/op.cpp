// The op spec both BatchNorm pipelines share: tensors, draws, the float64 references (Eigen's, and
// the program baselines/gpu/ runs with its slice families), the work model and the condition
// factor; the names, formulas and problems come from each op's spec.cpp.
#include <algorithm>
#include <cmath>

#include "baselines/cpu/gemm_pipeline_reference.hpp"
#include "baselines/cpu/operand_amplification.hpp"
#include "baselines/gpu/gemm_pipeline_references.hpp"
#include "harness/validation/device_executor.hpp"
#include "harness/validation/host_executor.hpp"
#include "kernels/gemm_pipelines/gemm_bn/pipeline.hpp"
#include "kernels/gemm_pipelines/pipeline_op.hpp"

namespace nb::gemm_bn {

Args args_of(BnTail tail, const Problem& p, const DeviceTensors& t) {
  const linear::Shape s = linear::shape_of(p);
  const bool normalize = tail == BnTail::normalize;
  const linear::dev::BnColumnArgs bn{t.in(kGamma),    t.in(kBeta),          t.out(kRunningMean), t.out(kRunningVar),
                                     t.out(kSaveMean), t.out(kSaveInvstd), float(s.eps),        float(s.momentum),
                                     float(s.unbias())};
  const bool bf16 = p.dtype == DType::bf16;
  return {linear::operands_of(p, t),
          bf16 ? nullptr : t.in(kBias),
          normalize ? t.in(kScale) : nullptr,
          normalize ? nullptr : t.in(kScale),
          bn,
          t.out(kY),
          int(s.m),
          int(s.n),
          s.tf32(),
          tail,
          linear::bf16_linear_of(p, t)};
}

namespace {

class BnPipelineOp final : public linear::ForwardPipelineOp {
 public:
  BnPipelineOp(BnTail tail, std::string name, std::string formula, std::vector<NamedProblem> problems)
      : tail_(tail), name_(std::move(name)), formula_(std::move(formula)), problems_(std::move(problems)) {
    for (auto& v : make_variants(tail)) add_variant(std::move(v));
  }
  std::string name() const override { return name_; }
  std::string formula() const override { return formula_; }
  std::vector<ParamDecl> param_decls() const override { return linear::param_decls(true, false); }
  std::string check(const Params& p) const override { return linear::check_params(p, true, false); }
  std::vector<NamedProblem> named_problems() const override { return problems_; }

  std::vector<TensorDecl> tensors(const Problem& p) const override {
    const linear::Shape s = linear::shape_of(p);
    using R = TensorRole;
    const std::int64_t scale = tail_ == BnTail::normalize ? s.n : 1;
    const DType operands = storage_type(p.dtype);  // bf16 problems: x, W and b in bf16
    return {{"x", R::input, s.m * s.k, {}, operands},
            {"weight", R::input, s.n * s.k, {}, operands},
            {"bias", R::input, s.n, {}, operands},
            {"scale", R::input, scale},     {"gamma", R::input, s.n},           {"beta", R::input, s.n},
            {"running_mean", R::inout, s.n}, {"running_var", R::inout, s.n},     {"y", R::output, s.m * s.n},
            {"save_mean", R::output, s.n},  {"save_invstd", R::output, s.n}};
  }

  // gamma, beta, s and the running statistics are drawn away from their identities so that a
  // variant which drops one fails. s takes random signs: BatchNorm is scale-invariant, so a
  // positive s would show only through eps and the running statistics.
  std::vector<InputDraw> input_draws(const Problem& p, Distribution d) const override {
    std::vector<InputDraw> draws = linear::linear_draws(linear::shape_of(p), d);
    draws.insert(draws.end(), {InputDraw::signed_uniform(kScale, 0.5f, 2.0f, 4, 5),
                               InputDraw::uniform(kGamma, 0.5f, 1.5f, 6), InputDraw::uniform(kBeta, -0.5f, 0.5f, 7),
                               InputDraw::uniform(kRunningMean, -1.0f, 1.0f, 8),
                               InputDraw::uniform(kRunningVar, 0.5f, 1.5f, 9)});
    return draws;
  }

  void reference_from_gemm(const Problem& p, const HostTensors& in, std::vector<double> h,
                           ReferenceTensors& out) const override {
    const linear::Shape s = linear::shape_of(p);
    if (tail_ == BnTail::normalize)
      for (std::size_t i = 0; i < h.size(); ++i) h[i] *= double(in[kScale][i % std::size_t(s.n)]);
    const std::vector<double> h_before = h;
    const linear::BatchNormOutputs stats{out[kSaveMean].data(), out[kSaveInvstd].data(), out[kRunningMean].data(),
                                         out[kRunningVar].data()};
    linear::batchnorm_columns(s, h, in[kGamma].data(), in[kBeta].data(), in[kRunningMean].data(),
                              in[kRunningVar].data(), stats);
    // bf16 (autocast) rounds h, and BatchNorm's output before the softmax; tf32 each product.
    const bool rounds_output = p.dtype == DType::bf16;
    const std::vector<double> normalized = rounds_output && tail_ == BnTail::scale_softmax ? h : std::vector<double>{};
    if (tail_ == BnTail::scale_softmax) scale_softmax(s, in, h);
    const linear::OperandNorms norms =
        rounds_output ? linear::OperandNorms{} : linear::operand_norms(s, in[kX].data(), in[kWeight].data());
    const float* column_scale = tail_ == BnTail::normalize ? in[kScale].data() : nullptr;
    const linear::RoundingErrors e =
        rounds_output ? linear::output_errors(s, h_before) : linear::product_errors(s, norms, column_scale);
    const double y = tail_ == BnTail::normalize
                         ? linear::batchnorm_amplification(s, e, in[kGamma].data(), out[kSaveInvstd].data(), h.data())
                         : linear::softmax_amplification(s, e, in[kGamma].data(), out[kSaveInvstd].data(),
                                                         in[kScale][0], h.data(),
                                                         normalized.empty() ? nullptr : normalized.data());
    out.operand_amplification = amplifications(
        y, linear::batchnorm_statistic_amplifications(s, linear::batchnorm_statistic_sums(s, e, h_before, stats)));
    out[kY] = std::move(h);
  }

  // The row family (the softmax tail) gives the device's column statistics: its rows are
  // normalized with them, then scaled and softmaxed as reference() does.
  void slice_reference(const Problem& p, const SliceFamily& family, const HostTensors& in, const ReferenceTensors& given,
                       ReferenceTensors& out) const override {
    if (family.given.empty()) return reference(p, in, out);
    const linear::Shape s = linear::shape_of(p);
    std::vector<double> h = linear::linear_reference(s, in[kX].data(), in[kWeight].data(), in[kBias].data());
    linear::normalize_columns(s, h, given[kSaveMean].data(), given[kSaveInvstd].data(), in[kGamma].data(),
                              in[kBeta].data());
    scale_softmax(s, in, h);
    out[kY] = std::move(h);
  }

  bool has_reference_program() const override { return true; }
  ReferenceConditions reference_program(const Problem& p, const ProgramTensors& t, const ProgramReference& out,
                                        Executor& ex) const override {
    const linear::Shape s = linear::shape_of(p);
    const gpu::LinearOperands lin{t.in(kX), t.in(kWeight), t.in(kBias), s.m, s.n, s.k, p.dtype == DType::bf16};
    const gpu::BatchNormColumns bn{t.f32(kGamma), t.f32(kBeta),   t.f32(kRunningMean), t.f32(kRunningVar),
                                   s.eps,         s.momentum,     out[kSaveMean],      out[kSaveInvstd],
                                   out[kRunningMean], out[kRunningVar]};
    const gpu::BatchNormPipelineAmplifications amplification = ex.visit([&](auto& e) {
      return tail_ == BnTail::normalize ? gpu::gemm_scale_bn(e, lin, t.f32(kScale), bn, out[kY])
                                        : gpu::gemm_bn_scale_softmax(e, lin, t.f32(kScale), bn, out[kY]);
    });
    const std::vector<double> mean = to_host(ex, out[kSaveMean], s.n), invstd = to_host(ex, out[kSaveInvstd], s.n);
    const std::vector<float> gamma = to_host(ex, t.f32(kGamma), s.n), scale = to_host(ex, t.f32(kScale), t.size(kScale));
    ReferenceConditions c;
    c.per_tensor.assign(kTensorCount, condition_of_y(mean.data(), invstd.data(), gamma.data(), scale.data(), s.n));
    c.operand_amplification = amplifications(amplification.y, amplification.statistics);
    return c;
  }
  std::vector<SliceFamily> slice_families(const Problem& p) const override {
    return gemm_bn::slice_families(*this, tail_, p);
  }

  WorkModel work(const Problem& p) const override {
    const linear::Shape s = linear::shape_of(p);
    const double mn = double(s.m) * double(s.n);
    const double operand = double(dtype_size(storage_type(p.dtype)));  // 2 for bf16 x and W
    const double bytes =
        operand * (double(s.m) * double(s.k) + double(s.n) * double(s.k)) + 4.0 * (mn + 9.0 * double(s.n));
    const double epilogue = tail_ == BnTail::normalize ? 8.0 : 14.0;
    return {bytes, s.gemm_flops() + epilogue * mn,
            "read x, W (bf16: 2 bytes each) + write y: 4*(M*K + N*K + M*N) (+ 9 vectors of N); flops 2*M*N*K + " +
                std::to_string(int(epilogue)) + " per output (bias, scale, statistics, normalize" +
                (tail_ == BnTail::normalize ? ")" : ", exp, sum, divide)")};
  }

  double normalization_length(const linear::Shape& s) const override { return double(s.m); }

  double tensor_condition(const Problem& p, int, const HostTensors& in, const ReferenceTensors& ref) const override {
    return condition_of_y(ref[kSaveMean].data(), ref[kSaveInvstd].data(), in[kGamma].data(), in[kScale].data(),
                          linear::shape_of(p).n);
  }

  std::vector<StressDistribution> stress() const override {
    return {{Distribution::wide, "squared deviations of h (x up to 1e20 times W) overflow fp32"}};
  }
  // offset x (1e4 + N(0,1)) makes each column of g about 1e4 times its spread: fp32 products keep
  // the spread, tf32 operands (11 significant bits) round it away, whatever the kernel.
  // bf16 (autocast) rounds h to 8 bits: at offset (1e3 + 8 N(0,1)) each column of h is about 100
  // times its spread, and tiny_var's x (1 + 1e-3 N(0,1)) is stored as 1 or 1 +- 2^-7, so its
  // columns keep a few distinct values, whose rounding is no longer small against their spread.
  std::vector<StressDistribution> stress(const Problem& p) const override {
    std::vector<StressDistribution> s = stress();
    if (p.dtype == DType::tf32)
      s.push_back({Distribution::offset,
                   "tf32 rounds x to 11 bits: at 1e4 + N(0,1) that is +-5 per element, over the column spread of g"});
    if (p.dtype == DType::bf16) {
      s.push_back({Distribution::offset,
                   "autocast rounds h to bf16 (8 bits): each column of h is ~100 times its spread at 1e3 + 8 N(0,1)"});
      s.push_back({Distribution::tiny_var,
                   "bf16 stores 1 + 1e-3 N(0,1) as 1 or 1 +- 2^-7: h's rounding is not small against its columns' "
                   "spread"});
    }
    return s;
  }

 private:
  // The softmax tail after the normalization: y = softmax(s * h) over each row, in place.
  static void scale_softmax(const linear::Shape& s, const HostTensors& in, std::vector<double>& h) {
    for (double& v : h) v *= double(in[kScale][0]);
    linear::softmax_rows(s, h);
  }

  // Each tensor's operand amplification: y's, and each statistic's own.
  static std::vector<double> amplifications(double y, const linear::BatchNormStatisticAmplifications& st) {
    std::vector<double> a(kTensorCount, 0.0);
    a[kY] = y;
    a[kSaveMean] = st.save_mean, a[kSaveInvstd] = st.save_invstd;
    a[kRunningMean] = st.running_mean, a[kRunningVar] = st.running_var;
    return a;
  }

  // A column whose mean is large against its spread amplifies the GEMM's rounding of h in y; the
  // softmax sees s * gamma times that error. The condition of every tensor.
  double condition_of_y(const double* mean, const double* invstd, const float* gamma, const float* scale,
                        std::int64_t n) const {
    double c = linear::column_condition(mean, invstd, n);
    if (tail_ == BnTail::scale_softmax) {
      double largest_gamma = 0;
      for (std::int64_t i = 0; i < n; ++i) largest_gamma = std::max(largest_gamma, double(std::fabs(gamma[i])));
      c *= std::max(1.0, std::fabs(double(scale[0])) * largest_gamma);
    }
    return c;
  }

  BnTail tail_;
  std::string name_, formula_;
  std::vector<NamedProblem> problems_;
};

}  // namespace

std::unique_ptr<OpSpec> make_op(BnTail tail, std::string name, std::string formula,
                                std::vector<NamedProblem> problems) {
  return std::make_unique<BnPipelineOp>(tail, std::move(name), std::move(formula), std::move(problems));
}

}  // namespace nb::gemm_bn
