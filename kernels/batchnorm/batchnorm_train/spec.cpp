#include "kernels/batchnorm/batchnorm_train/spec.hpp"

#include <cmath>

#include "baselines/cpu/batchnorm_reference.hpp"
#include "harness/validation/executor.hpp"
#include "kernels/batchnorm/channel_slices.hpp"
#include "kernels/batchnorm/op_base.hpp"
#include "kernels/batchnorm/sum_conditions.hpp"
#include "kernels/ops.hpp"

namespace nb {
namespace batchnorm_train {

bn::FwdArgs fwd_args(const Problem& p, const DeviceTensors& t) {
  const bn::Shape s = bn::shape_of(p);
  return {t.in(kX),           t.in(kGamma), t.in(kBeta),     t.out(kRunningMean), t.out(kRunningVar),
          t.out(kY),          t.out(kSaveMean), t.out(kSaveInvstd), s.n, s.c, s.hw,
          float(s.eps),       float(s.momentum), float(s.unbias())};
}

namespace {

class BatchNormTrainOp final : public bn::BatchNormOpBase {
 public:
  BatchNormTrainOp() {
    for (auto& v : make_variants()) add_variant(std::move(v));
  }
  std::string name() const override { return "batchnorm_train"; }
  std::string formula() const override {
    return "y = (x - mean_c) / sqrt(var_c + eps) * gamma_c + beta_c, batch statistics per channel "
           "(biased var); running stats updated with momentum and the unbiased var";
  }

  std::vector<TensorDecl> tensors(const Problem& p) const override {
    const bn::Shape s = bn::shape_of(p);
    using R = TensorRole;
    const std::vector<std::int64_t> x = bn::x_dims(p), c = {s.c};
    return {{"x", R::input, s.elements(), x},     {"gamma", R::input, s.c, c},
            {"beta", R::input, s.c, c},           {"running_mean", R::inout, s.c, c},
            {"running_var", R::inout, s.c, c},    {"y", R::output, s.elements(), x},
            {"save_mean", R::output, s.c, c},     {"save_invstd", R::output, s.c, c}};
  }

  std::vector<InputDraw> input_draws(const Problem&, Distribution d) const override {
    return {InputDraw::of(kX, d, 1), InputDraw::uniform(kGamma, 0.5f, 1.5f, 2), InputDraw::uniform(kBeta, -0.5f, 0.5f, 3),
            InputDraw::uniform(kRunningMean, -1.0f, 1.0f, 4), InputDraw::uniform(kRunningVar, 0.5f, 1.5f, 5)};
  }

  bool has_reference_program() const override { return true; }
  ReferenceConditions reference_program(const Problem& p, const ProgramTensors& t, const ProgramReference& out,
                                        Executor& ex) const override {
    const bn::Shape s = bn::shape_of(p);
    const gpu::BatchNormForward tensors{t.f32(kX),         t.f32(kGamma),     t.f32(kBeta),
                                        t.f32(kRunningMean), t.f32(kRunningVar), out[kY],
                                        out[kSaveMean],     out[kSaveInvstd],  out[kRunningMean],
                                        out[kRunningVar]};
    const gpu::ChannelSums sums =
        ex.visit([&](auto& e) { return gpu::batchnorm_forward(e, tensors, s); });
    ReferenceConditions c;
    c.instance = condition_of(s, sums);
    c.per_tensor.assign(kTensorCount, 1.0);
    c.per_tensor[kSaveMean] = c.per_tensor[kRunningMean] = bn::mean_condition(sums.sum, sums.abs_sum);
    return c;
  }

  std::vector<SliceFamily> slice_families(const Problem& p) const override {
    //                          x     gamma  beta   r_mean r_var  y     s_mean s_invstd
    return {bn::channel_slices(*this, p, {true, false, false, false, false, true, false, false},
                               {kY, kSaveMean, kSaveInvstd, kRunningMean, kRunningVar})};
  }

  void reference(const Problem& p, const HostTensors& in, ReferenceTensors& out) const override {
    bn::forward_reference(bn::shape_of(p), in[kX].data(), in[kGamma].data(), in[kBeta].data(),
                          in[kRunningMean].data(), in[kRunningVar].data(),
                          {out[kY].data(), out[kSaveMean].data(), out[kSaveInvstd].data(),
                           out[kRunningMean].data(), out[kRunningVar].data()});
  }

  WorkModel work(const Problem& p) const override {
    const bn::Shape s = bn::shape_of(p);
    const double e = double(s.elements());
    return {4 * (2 * e + 8 * double(s.c)), 8 * e,
            "compulsory: read x + write y = 2*4*N*C*H*W (+ 8 per-channel vectors); a channel larger than "
            "the on-chip memory forces a second read of x (3 passes)"};
  }

  double condition(const Problem& p, const HostTensors& in) const override {
    const bn::Shape s = bn::shape_of(p);
    const bn::ChannelMoments m = bn::channel_moments(s, in[kX].data());
    return condition_of(s, {m.mean, m.var, {}, {}});
  }

  // |mean| * invstd at worst: how far y's fp32 rounding of x - mean is amplified.
  static double condition_of(const bn::Shape& s, const gpu::ChannelSums& m) {
    std::vector<double> invstd(m.var.size());
    for (std::size_t c = 0; c < invstd.size(); ++c) invstd[c] = 1.0 / std::sqrt(m.var[c] + s.eps);
    return bn::condition_from_stats(m.mean, invstd);
  }

  std::vector<StressDistribution> stress() const override {
    return {{Distribution::offset, "E[x^2] - E[x]^2 cancels in fp32 when |mean| >> std"},
            {Distribution::tiny_var,
             "variance 1e-6 at mean 1: E[x^2] - E[x]^2 keeps about one of fp32's seven digits"},
            {Distribution::wide, "x^2 and (x - mean)^2 overflow fp32 for |x| > 1.8e19"}};
  }


  double tensor_condition(const Problem& p, int tensor, const HostTensors& in, const ReferenceTensors&) const override {
    if (tensor != kSaveMean && tensor != kRunningMean) return 1.0;
    return bn::mean_condition(bn::shape_of(p), in[kX].data());
  }
};

}  // namespace
}  // namespace batchnorm_train

std::unique_ptr<OpSpec> make_batchnorm_train_op() { return std::make_unique<batchnorm_train::BatchNormTrainOp>(); }

}  // namespace nb
