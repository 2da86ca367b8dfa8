// The op spec both BatchNorm pipelines share: tensors, draws, the float64 reference, the work
// model and the condition factor; the names, formulas and problems come from each op's spec.cpp.
#include <cmath>

#include "baselines/cpu/gemm_pipeline_reference.hpp"
#include "kernels/gemm_bn_common/pipeline.hpp"
#include "kernels/gemm_pipeline_common/pipeline_op.hpp"

namespace nb::bn_pipeline {

Args args_of(BnTail tail, const Problem& p, const DeviceTensors& t) {
  const linear::Shape s = linear::shape_of(p);
  const bool normalize = tail == BnTail::normalize;
  const linear::dev::BnColumnArgs bn{t.in(kGamma),    t.in(kBeta),          t.out(kRunningMean), t.out(kRunningVar),
                                     t.out(kSaveMean), t.out(kSaveInvstd), float(s.eps),        float(s.momentum),
                                     float(s.unbias())};
  return {linear::operands_of(p, t),
          t.in(kBias),
          normalize ? t.in(kScale) : nullptr,
          normalize ? nullptr : t.in(kScale),
          bn,
          t.out(kY),
          int(s.m),
          int(s.n),
          s.tf32(),
          tail};
}

namespace {

class BnPipelineOp final : public linear::PipelineOp {
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
    return {{"x", R::input, s.m * s.k},     {"weight", R::input, s.n * s.k},    {"bias", R::input, s.n},
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

  void reference(const Problem& p, const HostTensors& in, ReferenceTensors& out) const override {
    const linear::Shape s = linear::shape_of(p);
    std::vector<double> h = linear::linear_reference(s, in[kX].data(), in[kWeight].data(), in[kBias].data());
    if (tail_ == BnTail::normalize)
      for (std::size_t i = 0; i < h.size(); ++i) h[i] *= double(in[kScale][i % std::size_t(s.n)]);
    linear::batchnorm_columns(s, h, in[kGamma].data(), in[kBeta].data(), in[kRunningMean].data(),
                              in[kRunningVar].data(),
                              {out[kSaveMean].data(), out[kSaveInvstd].data(), out[kRunningMean].data(),
                               out[kRunningVar].data()});
    if (tail_ == BnTail::scale_softmax) {
      for (double& v : h) v *= double(in[kScale][0]);
      linear::softmax_rows(s, h);
    }
    out[kY] = std::move(h);
  }

  WorkModel work(const Problem& p) const override {
    const linear::Shape s = linear::shape_of(p);
    const double mn = double(s.m) * double(s.n);
    const double bytes = 4.0 * (double(s.m) * double(s.k) + double(s.n) * double(s.k) + mn + 9.0 * double(s.n));
    const double epilogue = tail_ == BnTail::normalize ? 8.0 : 14.0;
    return {bytes, s.gemm_flops() + epilogue * mn,
            "read x, W + write y: 4*(M*K + N*K + M*N) (+ 9 vectors of N); flops 2*M*N*K + " +
                std::to_string(int(epilogue)) + " per output (bias, scale, statistics, normalize" +
                (tail_ == BnTail::normalize ? ")" : ", exp, sum, divide)")};
  }

  double normalization_length(const linear::Shape& s) const override { return double(s.m); }

  // A column whose mean is large against its spread amplifies the GEMM's rounding of h in y.
  double tensor_condition(const Problem& p, int, const HostTensors& in, const ReferenceTensors& ref) const override {
    const linear::Shape s = linear::shape_of(p);
    double c = linear::column_condition(ref[kSaveMean].data(), ref[kSaveInvstd].data(), s.n);
    if (tail_ == BnTail::scale_softmax) {
      double gamma = 0;
      for (float g : in[kGamma]) gamma = std::max(gamma, double(std::fabs(g)));
      c *= std::max(1.0, std::fabs(double(in[kScale][0])) * gamma);  // softmax sees s * gamma * error
    }
    return c;
  }

  std::vector<StressDistribution> stress() const override {
    return {{Distribution::wide, "squared deviations of h (x up to 1e20 times W) overflow fp32"}};
  }
  // offset x (1e4 + N(0,1)) makes each column of g about 1e4 times its spread: fp32 products keep
  // the spread, tf32 operands (11 significant bits) round it away, whatever the kernel.
  std::vector<StressDistribution> stress(const Problem& p) const override {
    std::vector<StressDistribution> s = stress();
    if (p.dtype == DType::tf32)
      s.push_back({Distribution::offset,
                   "tf32 rounds x to 11 bits: at 1e4 + N(0,1) that is +-5 per element, over the column spread of g"});
    return s;
  }

 private:
  BnTail tail_;
  std::string name_, formula_;
  std::vector<NamedProblem> problems_;
};

}  // namespace

std::unique_ptr<OpSpec> make_op(BnTail tail, std::string name, std::string formula,
                                std::vector<NamedProblem> problems) {
  return std::make_unique<BnPipelineOp>(tail, std::move(name), std::move(formula), std::move(problems));
}

}  // namespace nb::bn_pipeline
