// gemm_scale_bn_bwd: the training-step backward of gemm_scale_bn (backward.hpp states the
// contract). The spec draws the inputs, derives what the forward would have saved, computes
// autograd's six gradients in float64 (Eigen's, and the program baselines/gpu/ runs, with the
// slice families that audit it), and judges each against a condition of its own: four are column sums that cancel
// (db to zero, ds to an eps-sized remainder), two are GEMMs (docs/tolerance.md).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "baselines/cpu/gemm_bwd_conditions.hpp"
#include "baselines/cpu/gemm_bwd_reference.hpp"
#include "baselines/cpu/gemm_pipeline_reference.hpp"
#include "baselines/cublas/cublas_gemm.hpp"
#include "baselines/gpu/gemm_bwd_references.hpp"
#include "harness/narrow_float.hpp"
#include "harness/validation/executor.hpp"
#include "kernels/gemm_pipelines/pipeline_op.hpp"
#include "kernels/gemm_pipelines/gemm_scale_bn_bwd/backward.hpp"
#include "kernels/gemm_pipelines/gemm_scale_bn_bwd/slice_families.hpp"
#include "kernels/ops.hpp"

namespace nb {
namespace gemm_scale_bn_bwd {

Args args_of(const Problem& p, const DeviceTensors& t) {
  const linear::Shape s = linear::shape_of(p);
  if (p.dtype == DType::bf16) {
    using B = __nv_bfloat16;
    const Bf16Tensors bf16{t.ptr<const B>(kX), t.ptr<const B>(kWeight), t.ptr<const B>(kG),
                           t.ptr<B>(kDx),      t.ptr<B>(kDweight),      t.ptr<B>(kDbias)};
    return {nullptr,        nullptr,        t.in(kScale), t.in(kGamma), nullptr,  t.in(kSaveMean), t.in(kSaveInvstd),
            t.in(kDy),      nullptr,        nullptr,      nullptr,      t.out(kDscale), t.out(kDgamma),
            t.out(kDbeta),  int(s.m),       int(s.n),     int(s.k),     false,    bf16};
  }
  return {t.in(kX),     t.in(kWeight),  t.in(kScale),    t.in(kGamma),      t.in(kG),          t.in(kSaveMean),
          t.in(kSaveInvstd), t.in(kDy), t.out(kDx),      t.out(kDweight),   t.out(kDbias),     t.out(kDscale),
          t.out(kDgamma), t.out(kDbeta), int(s.m),       int(s.n),          int(s.k),          s.tf32(),
          Bf16Tensors{}};
}

namespace {

linear::BackwardInputs<float> inputs_of(const HostTensors& in) {
  return {in[kX].data(), in[kWeight].data(), in[kScale].data(),    in[kGamma].data(),
          in[kG].data(), in[kSaveMean].data(), in[kSaveInvstd].data(), in[kDy].data()};
}

linear::BackwardOutputs outputs_of(ReferenceTensors& out) {
  return {out[kDx].data(), out[kDweight].data(), out[kDbias].data(),
          out[kDscale].data(), out[kDgamma].data(), out[kDbeta].data()};
}

linear::BackwardGradients gradients_of(const ReferenceTensors& ref) {
  return {ref[kDx].data(), ref[kDweight].data(), ref[kDbias].data(),
          ref[kDscale].data(), ref[kDgamma].data(), ref[kDbeta].data()};
}

// The normalization's condition, max over columns of sqrt(1 + (mean * invstd)^2) of the saved
// statistics: xhat carries the rounding of h = g * s at that many times its spread.
double normalization_condition(const float* save_mean, const float* save_invstd, std::int64_t n) {
  const std::vector<double> mean(save_mean, save_mean + n), invstd(save_invstd, save_invstd + n);
  return linear::column_condition(mean.data(), invstd.data(), n);
}

// A gradient's own ratio (gemm_bwd_conditions.hpp); 1 for the inputs.
double own_condition(int tensor, const linear::BackwardConditions& k) {
  if (tensor < kDx) return 1.0;
  return tensor == kDx        ? k.dx
         : tensor == kDweight ? k.dweight
         : tensor == kDbias   ? k.dbias
         : tensor == kDscale  ? k.dscale
         : tensor == kDgamma  ? k.dgamma
                              : k.dbeta;
}

// A gradient's condition: its own ratio times the normalization's; 1 for the inputs.
double gradient_condition(int tensor, const linear::BackwardConditions& k, double normalization) {
  return tensor < kDx ? 1.0 : own_condition(tensor, k) * normalization;
}

// The operand amplification of a gradient is its own ratio: for dx and dW the norm that errors of
// the size of dg's leading terms reach through the GEMM over the result's (an independent rounding
// of each product's operands, or of each element of dg, is such an error); for a column sum the
// norm of its terms over its own, which bounds an independent rounding of each term. The
// normalization's condition does not enter: it amplifies the rounding of h inside xhat, an fp32
// error. bf16 (autocast): the one rounding inside the computation is dg's to bf16 (autograd casts
// the gradient to g's type), which reaches dx, dW and db alone; ds, dgamma and dbeta are fp32 sums
// of fp32 dy and dh with the stored g, held to fp32's bound.
double gradient_amplification(const Problem& p, int tensor, const linear::BackwardConditions& k) {
  if (tensor < kDx) return 0.0;
  if (p.dtype == DType::bf16 && tensor != kDx && tensor != kDweight && tensor != kDbias) return 0.0;
  return own_condition(tensor, k);
}

// The backward's GEMMs alone at the problem's precision, dx = dg W then dW = dg^T x, into the
// workspace (dy stands in for dg: the library does not look at the values). bf16: bf16 dg, W, x
// and outputs (autocast's), dy's first M x N x 2 bytes read as the bf16 dg.
class BackwardGemmsCeiling final : public Variant {
 public:
  explicit BackwardGemmsCeiling(DType precision) : precision_(precision) {}
  std::string name() const override { return "cublas_gemm_dx_dw_" + dtype_name(precision_); }
  std::string kind() const override { return "cublas"; }
  std::string idea() const override {
    const char* compute = precision_ == DType::tf32   ? "CUBLAS_COMPUTE_32F_FAST_TF32"
                          : precision_ == DType::bf16 ? "bf16 operands and outputs, CUBLAS_COMPUTE_32F"
                                                      : "CUBLAS_COMPUTE_32F (IEEE fp32)";
    return std::string("cublasGemmEx, ") + compute + ": dx = dg W and dW = dg^T x alone, nothing else of the backward";
  }
  std::size_t workspace_bytes(const Problem& p) const override {
    const linear::Shape s = linear::shape_of(p);
    return (std::size_t(s.m) + std::size_t(s.n)) * std::size_t(s.k) * dtype_size(storage_type(precision_));
  }
  void prepare(const Problem&) override { cublas::handle(); }
  void launch(const Problem& p, const DeviceTensors& t, void* ws, cudaStream_t stream) override {
    const Args a = args_of(p, t);
    const std::size_t dx_elements = std::size_t(a.m) * std::size_t(a.k);
    if (precision_ == DType::bf16) {
      const auto* dg = reinterpret_cast<const __nv_bfloat16*>(a.dy);
      auto* dx = static_cast<__nv_bfloat16*>(ws);
      cublas::gemm_dx_bf16(dg, a.bf16.weight, dx, a.m, a.n, a.k, stream);
      cublas::gemm_dw_bf16(dg, a.bf16.x, dx + dx_elements, a.m, a.n, a.k, stream);
      return;
    }
    float* dx = static_cast<float*>(ws);
    const bool tf32 = precision_ == DType::tf32;
    cublas::gemm_dx(a.dy, a.weight, dx, a.m, a.n, a.k, tf32, stream);
    cublas::gemm_dw(a.dy, a.x, dx + dx_elements, a.m, a.n, a.k, tf32, stream);
  }

 private:
  DType precision_;
};

class GemmScaleBnBwdOp final : public linear::PipelineOp {
 public:
  GemmScaleBnBwdOp() {
    for (auto& v : make_variants()) add_variant(std::move(v));
  }
  std::string name() const override { return "gemm_scale_bn_bwd"; }
  // bf16: autocast's backward (docs/notes/bf16-pipelines.md): x, W, g and dx, dW, db in bf16, dg
  // rounded to bf16 inside; dy, the statistics and ds, dgamma, dbeta fp32.
  std::vector<DType> dtypes() const override { return {DType::f32, DType::tf32, DType::bf16}; }
  std::string formula() const override {
    return "backward of y = bn_train((x W^T + b) * s) from dy and the saved g, mean, invstd: dbeta = sum dy, "
           "dgamma = sum dy*xhat, dh = gamma*invstd*(dy - dbeta/M - xhat*dgamma/M), dg = dh*s, ds = sum dh*g, "
           "db = sum dg, dx = dg W, dW = dg^T x (sums over the M rows)";
  }
  // No running statistics in the backward: m, n, k, eps without momentum; M >= 2 as in the forward.
  std::vector<ParamDecl> param_decls() const override { return linear::param_decls(false, false); }
  std::string check(const Params& p) const override { return linear::check_params(p, true, false); }

  std::vector<NamedProblem> named_problems() const override {
    const auto named = linear::named_with_bf16;
    return {named({{"m", 128}, {"n", 512}, {"k", 1024}}, {"kb"}, "KernelBench L2#33's shape, original size"),
            named({{"m", 1024}, {"n", 8192}, {"k", 8192}}, {"kb"}, "KernelBench L2#33's shape, enlarged"),
            named({{"m", 16384}, {"n", 4096}, {"k", 4096}}, {"kb"}, "KernelBench L2#39's shape"),
            linear::bf16_named({{"m", 8192}, {"n", 4096}, {"k", 4096}}, {"kb"},
                               "transformer-sized: 8192 tokens, hidden 4096"),
            named({{"m", 64}, {"n", 96}, {"k", 128}}, {"quick"}, "small aligned"),
            named({{"m", 127}, {"n", 33}, {"k", 1001}}, {"quick"}, "odd M, N, K (no vector loads)"),
            named({{"m", 2}, {"n", 130}, {"k", 67}}, {"quick"}, "M = 2: the smallest batch BatchNorm accepts"),
            named({{"m", 300}, {"n", 257}, {"k", 260}}, {"quick"}, "M over one tile, odd N, K multiple of 4")};
  }

  std::vector<TensorDecl> tensors(const Problem& p) const override {
    const linear::Shape s = linear::shape_of(p);
    using R = TensorRole;
    const DType narrow = storage_type(p.dtype);  // bf16 problems: x, W, g and dx, dW, db in bf16
    return {{"x", R::input, s.m * s.k, {}, narrow},     {"weight", R::input, s.n * s.k, {}, narrow},
            {"scale", R::input, s.n},                   {"gamma", R::input, s.n},
            {"g", R::input, s.m * s.n, {}, narrow},     {"save_mean", R::input, s.n},
            {"save_invstd", R::input, s.n},             {"dy", R::input, s.m * s.n},
            {"dx", R::output, s.m * s.k, {}, narrow},   {"dweight", R::output, s.n * s.k, {}, narrow},
            {"dbias", R::output, s.n, {}, narrow},      {"dscale", R::output, s.n},
            {"dgamma", R::output, s.n},                 {"dbeta", R::output, s.n}};
  }

  // s, gamma and b follow the forward op's draws (s = +-U[0.5, 2], gamma U[0.5, 1.5], x, W and b as
  // linear_draws); dy is N(0, 1) from its own stream whatever the distribution of x. b is no tensor
  // of the backward: derive_inputs draws it from its element rule.
  std::vector<InputDraw> input_draws(const Problem& p, Distribution d) const override {
    std::vector<InputDraw> draws = linear::linear_operand_draws(linear::shape_of(p), d);
    draws.insert(draws.end(), {InputDraw::signed_uniform(kScale, 0.5f, 2.0f, 4, 5),
                               InputDraw::uniform(kGamma, 0.5f, 1.5f, 6),
                               InputDraw::of(kDy, Distribution::normal, 10)});
    return draws;
  }

  // What the forward would have saved for these x, W, b, s: g = x W^T + b in float64 rounded to
  // float (then to bf16 in a bf16 problem, autocast's linear output), and the float64 batch
  // statistics of h = g * s from that g, rounded to float.
  void derive_inputs(const Problem& p, std::uint64_t seed, HostTensors& t) const override {
    const linear::Shape s = linear::shape_of(p);
    const InputDraw bias_draw = linear::linear_bias_draw(s);
    std::vector<float> bias(std::size_t(s.n));
    for (std::int64_t c = 0; c < s.n; ++c) bias[std::size_t(c)] = bias_draw.value(seed, std::uint64_t(c), DType::f32);
    const std::vector<double> g = linear::linear_reference(s, t[kX].data(), t[kWeight].data(), bias.data());
    std::vector<float>& g_saved = t[kG];
    const DType storage = storage_type(p.dtype);
    parallel_for(std::int64_t(g.size()), [&](std::int64_t b, std::int64_t e) {
      for (std::int64_t i = b; i < e; ++i) g_saved[std::size_t(i)] = round_to_storage(float(g[std::size_t(i)]), storage);
    });
    const linear::ColumnStatistics st = linear::batch_statistics(s, g_saved.data(), t[kScale].data());
    for (std::int64_t c = 0; c < s.n; ++c) {
      t[kSaveMean][std::size_t(c)] = float(st.mean[std::size_t(c)]);
      t[kSaveInvstd][std::size_t(c)] = float(st.invstd[std::size_t(c)]);
    }
  }
  void derive_inputs(const Problem& p, std::uint64_t seed, const ProgramTensors& t, Executor& ex) const override {
    const linear::Shape s = linear::shape_of(p);
    const gpu::ForwardOperands forward{t.in(kX), t.in(kWeight), t.f32(kScale), linear::linear_bias_draw(s),
                                       seed,     s.m,           s.n,           s.k, s.eps};
    const gpu::ForwardSaved saved{t.out(kG), t.mutable_f32(kSaveMean), t.mutable_f32(kSaveInvstd)};
    ex.visit([&](auto& e) { gpu::forward_saved(e, forward, saved); });
  }

  void reference(const Problem& p, const HostTensors& in, ReferenceTensors& out) const override {
    const linear::Shape s = linear::shape_of(p);
    linear::backward_reference(s, inputs_of(in), outputs_of(out));
    const linear::BackwardConditions own = linear::backward_conditions(s, inputs_of(in), gradients_of(out));
    out.operand_amplification.clear();
    for (int tensor = 0; tensor < kTensorCount; ++tensor)
      out.operand_amplification.push_back(gradient_amplification(p, tensor, own));
  }

  bool has_reference_program() const override { return true; }
  // The six gradients by gpu::gemm_scale_bn_backward; the conditions as tensor_condition gives them.
  ReferenceConditions reference_program(const Problem& p, const ProgramTensors& t, const ProgramReference& out,
                                        Executor& ex) const override {
    const linear::Shape s = linear::shape_of(p);
    const gpu::GemmBwdInputs in{t.in(kX),         t.in(kWeight),       t.f32(kScale), t.f32(kGamma), t.in(kG),
                                t.f32(kSaveMean), t.f32(kSaveInvstd), t.f32(kDy),    s.m,           s.n,
                                s.k};
    const gpu::GemmBwdGradients gradients{out[kDx],     out[kDweight], out[kDbias],
                                          out[kDscale], out[kDgamma],  out[kDbeta]};
    const linear::BackwardConditions own = ex.visit([&](auto& e) {
      gpu::gemm_scale_bn_backward(e, in, gradients);
      return gpu::gemm_scale_bn_backward_conditions(e, in, gradients);
    });
    const std::vector<float> mean = to_host(ex, t.f32(kSaveMean), s.n), invstd = to_host(ex, t.f32(kSaveInvstd), s.n);
    const double normalization = normalization_condition(mean.data(), invstd.data(), s.n);
    ReferenceConditions c;
    for (int tensor = 0; tensor < kTensorCount; ++tensor) {
      c.per_tensor.push_back(gradient_condition(tensor, own, normalization));
      c.operand_amplification.push_back(gradient_amplification(p, tensor, own));
    }
    return c;
  }

  std::vector<SliceFamily> slice_families(const Problem& p) const override {
    return {row_family(*this, p), column_family(*this, p)};
  }
  // Rows: dx from the whole batch's dbeta and dgamma, given (the family's count is that batch).
  // Columns: every gradient but dx, which needs every column.
  void slice_reference(const Problem& p, const SliceFamily& family, const HostTensors& in, const ReferenceTensors& given,
                       ReferenceTensors& out) const override {
    const linear::Shape s = linear::shape_of(p);
    if (family.given.empty()) {
      linear::BackwardOutputs columns = outputs_of(out);
      columns.dx = nullptr;
      return linear::backward_reference(s, inputs_of(in), columns);
    }
    linear::input_gradient_of_rows(s, family.count, inputs_of(in), given[kDbeta].data(), given[kDgamma].data(),
                                   out[kDx].data());
  }

  WorkModel work(const Problem& p) const override {
    const linear::Shape s = linear::shape_of(p);
    const double mk = double(s.m) * double(s.k), nk = double(s.n) * double(s.k), mn = double(s.m) * double(s.n);
    const double e = double(dtype_size(storage_type(p.dtype)));  // x, W, g, dx, dW: 2 bytes in bf16
    return {e * (2 * mk + 2 * nk + mn) + 4.0 * (mn + 8.0 * double(s.n)), 2.0 * s.gemm_flops() + 15.0 * mn,
            "read x, W, g, dy + write dx, dW: e*(2*M*K + 2*N*K + M*N) + 4*M*N (dy) (+ 8 vectors of N), e = 4 "
            "(2 for bf16); flops 4*M*N*K (dx = dg W, dW = dg^T x) + 15 per element of (M, N) (xhat, dh, dg and "
            "the four column sums)"};
  }

  std::unique_ptr<Variant> ceiling_kernel(const Problem& p) const override {
    return std::make_unique<BackwardGemmsCeiling>(p.dtype);
  }

  // Each gradient's own ratio (gemm_bwd_conditions.hpp) times the normalization's condition.
  double tensor_condition(const Problem& p, int tensor, const HostTensors& in,
                          const ReferenceTensors& ref) const override {
    if (tensor < kDx) return 1.0;
    const linear::Shape s = linear::shape_of(p);
    const linear::BackwardConditions k = linear::backward_conditions(s, inputs_of(in), gradients_of(ref));
    return gradient_condition(tensor, k, normalization_condition(in[kSaveMean].data(), in[kSaveInvstd].data(), s.n));
  }

  std::vector<StressDistribution> stress() const override {
    return {{Distribution::wide, "h (x up to 1e20 times W) and its squared deviations overflow fp32"}};
  }
  // offset x (1e4 + N(0,1)): tf32 rounds x to 11 bits, +-5 per element, over the spread that dW
  // and the column statistics of g depend on, whatever the kernel. bf16 (autocast) rounds dg to 8
  // bits, and dW = dg^T x cancels x's column mean (bf16's offset: 1e3 + 8 N(0,1), 125 times its
  // spread) down to that spread: dg's rounding reaches dW at u |dg| |x|, past dW itself, so no bound
  // both holds and discriminates there.
  std::vector<StressDistribution> stress(const Problem& p) const override {
    std::vector<StressDistribution> s = stress();
    if (p.dtype == DType::tf32)
      s.push_back({Distribution::offset,
                   "tf32 rounds x to 11 bits: at 1e4 + N(0,1) that is +-5 per element, over the spread dW sums"});
    if (p.dtype == DType::bf16)
      s.push_back({Distribution::offset,
                   "autocast rounds dg to bf16 (8 bits): dW = dg^T x cancels x's column mean (125 times its "
                   "spread at 1e3 + 8 N(0,1)) down to that spread, so dg's rounding outgrows dW"});
    return s;
  }

 protected:
  double normalization_length(const linear::Shape& s) const override { return double(s.m); }  // the column sums
  // dx reduces over N, dW over M.
  double gemm_reduction_length(const linear::Shape& s) const override { return double(std::max(s.n, s.m)); }
};

}  // namespace
}  // namespace gemm_scale_bn_bwd

std::unique_ptr<OpSpec> make_gemm_scale_bn_bwd_op() { return std::make_unique<gemm_scale_bn_bwd::GemmScaleBnBwdOp>(); }

}  // namespace nb
