#include "kernels/batchnorm/batchnorm_bwd/spec.hpp"

#include <cmath>

#include "baselines/cpu/batchnorm_reference.hpp"
#include "harness/validation/executor.hpp"
#include "kernels/batchnorm/channel_slices.hpp"
#include "kernels/batchnorm/op_base.hpp"
#include "kernels/batchnorm/sum_conditions.hpp"
#include "kernels/ops.hpp"

namespace nb {
namespace batchnorm_bwd {

bn::BwdArgs bwd_args(const Problem& p, const DeviceTensors& t) {
  const bn::Shape s = bn::shape_of(p);
  return {t.in(kX),  t.in(kDy),     t.in(kGamma),  t.in(kSaveMean), t.in(kSaveInvstd),
          t.out(kDx), t.out(kDgamma), t.out(kDbeta), s.n,             s.c,
          s.hw};
}

namespace {

class BatchNormBwdOp final : public bn::BatchNormOpBase {
 public:
  std::vector<NamedProblem> named_problems() const override { return bn::named_problems(bn::Pass::backward); }
  BatchNormBwdOp() {
    for (auto& v : make_variants()) add_variant(std::move(v));
  }
  std::string name() const override { return "batchnorm_bwd"; }
  std::string formula() const override {
    return "dx = invstd/M * gamma * (M*dy - sum(dy) - xhat*sum(dy*xhat)), dgamma = sum(dy*xhat), "
           "dbeta = sum(dy), per channel, xhat from the saved mean/invstd";
  }

  std::vector<TensorDecl> tensors(const Problem& p) const override {
    const bn::Shape s = bn::shape_of(p);
    using R = TensorRole;
    return {{"x", R::input, s.elements()}, {"dy", R::input, s.elements()}, {"gamma", R::input, s.c},
            {"save_mean", R::input, s.c},  {"save_invstd", R::input, s.c}, {"dx", R::output, s.elements()},
            {"dgamma", R::output, s.c},    {"dbeta", R::output, s.c}};
  }

  std::vector<InputDraw> input_draws(const Problem&, Distribution d) const override {
    return {InputDraw::of(kX, d, 1), InputDraw::of(kDy, Distribution::normal, 6),
            InputDraw::uniform(kGamma, 0.5f, 1.5f, 2)};
  }

  // save_mean/save_invstd are what a forward pass would have saved: float64 statistics of x,
  // rounded to float.
  void derive_inputs(const Problem& p, std::uint64_t, HostTensors& t) const override {
    const bn::Shape s = bn::shape_of(p);
    const bn::ChannelMoments m = bn::channel_moments(s, t[kX].data());
    for (std::int64_t c = 0; c < s.c; ++c) {
      t[kSaveMean][c] = float(m.mean[c]);
      t[kSaveInvstd][c] = float(1.0 / std::sqrt(m.var[c] + s.eps));
    }
  }

  void derive_inputs(const Problem& p, std::uint64_t, const ProgramTensors& t, Executor& ex) const override {
    const bn::Shape s = bn::shape_of(p);
    ex.visit([&](auto& e) {
      gpu::saved_statistics(e, t.f32(kX), {s.n, s.c, s.hw, s.eps, s.momentum}, t.mutable_f32(kSaveMean),
                            t.mutable_f32(kSaveInvstd));
    });
  }

  bool has_reference_program() const override { return true; }
  ReferenceConditions reference_program(const Problem& p, const ProgramTensors& t, const ProgramReference& out,
                                        Executor& ex) const override {
    const bn::Shape s = bn::shape_of(p);
    const gpu::BatchNormBackward tensors{t.f32(kX),        t.f32(kDy), t.f32(kGamma), t.f32(kSaveMean),
                                         t.f32(kSaveInvstd), out[kDx], out[kDgamma], out[kDbeta]};
    const gpu::GradientSums sums =
        ex.visit([&](auto& e) { return gpu::batchnorm_backward(e, tensors, s); });
    const std::vector<float> mean = to_host(ex, t.f32(kSaveMean), s.c), invstd = to_host(ex, t.f32(kSaveInvstd), s.c);
    ReferenceConditions c;
    c.instance = bn::condition_from_stats({mean.begin(), mean.end()}, {invstd.begin(), invstd.end()});
    const bn::GradientConditions g = bn::gradient_conditions(sums);
    c.per_tensor.assign(kTensorCount, 1.0);
    c.per_tensor[kDx] = g.dx, c.per_tensor[kDgamma] = g.dgamma, c.per_tensor[kDbeta] = g.dbeta;
    return c;
  }

  std::vector<SliceFamily> slice_families(const Problem& p) const override {
    //                          x     dy    gamma  s_mean s_invstd dx    dgamma dbeta
    return {bn::channel_slices(*this, p, {true, true, false, false, false, true, false, false}, {kDx, kDgamma, kDbeta})};
  }

  void reference(const Problem& p, const HostTensors& in, ReferenceTensors& out) const override {
    bn::backward_reference(bn::shape_of(p), in[kX].data(), in[kDy].data(), in[kGamma].data(), in[kSaveMean].data(),
                           in[kSaveInvstd].data(), {out[kDx].data(), out[kDgamma].data(), out[kDbeta].data()});
  }

  WorkModel work(const Problem& p) const override {
    const bn::Shape s = bn::shape_of(p);
    const double e = double(s.elements());
    return {4 * (3 * e + 5 * double(s.c)), 9 * e,
            "compulsory: read x, dy + write dx = 3*4*N*C*H*W (+ 5 per-channel vectors); a channel larger than "
            "the on-chip memory forces a second read of x and dy (5 passes)"};
  }

  double condition(const Problem& p, const HostTensors& in) const override {
    std::vector<double> mean(in[kSaveMean].begin(), in[kSaveMean].end());
    std::vector<double> invstd(in[kSaveInvstd].begin(), in[kSaveInvstd].end());
    return bn::condition_from_stats(mean, invstd);
  }


  double tensor_condition(const Problem& p, int tensor, const HostTensors& in,
                          const ReferenceTensors& ref) const override {
    if (tensor != kDx && tensor != kDgamma && tensor != kDbeta) return 1.0;
    const bn::GradientConditions g =
        bn::gradient_conditions(bn::shape_of(p), in[kX].data(), in[kDy].data(), in[kGamma].data(),
                                in[kSaveMean].data(), in[kSaveInvstd].data(), ref[kDx].data());
    return tensor == kDx ? g.dx : tensor == kDgamma ? g.dgamma : g.dbeta;
  }

  std::vector<StressDistribution> stress() const override {
    return {{Distribution::wide, "dy*(x - mean) and the saved variance overflow fp32 for |x| > 1.8e19"}};
  }

  std::vector<NotApplicable> not_applicable() const override {
    return {{"welford", "the mean comes saved from the forward pass: sum(dy*(x - mean)) has no cancellation to avoid"}};
  }
};

}  // namespace
}  // namespace batchnorm_bwd

std::unique_ptr<OpSpec> make_batchnorm_bwd_op() { return std::make_unique<batchnorm_bwd::BatchNormBwdOp>(); }

}  // namespace nb
