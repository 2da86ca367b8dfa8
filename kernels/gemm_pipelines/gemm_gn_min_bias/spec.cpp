#include "kernels/gemm_pipelines/gemm_gn_min_bias/spec.hpp"

#include <cmath>

#include "baselines/cpu/gemm_pipeline_reference.hpp"
#include "baselines/cpu/operand_amplification.hpp"
#include "baselines/gpu/gemm_pipeline_references.hpp"
#include "harness/validation/executor.hpp"
#include "kernels/gemm_pipelines/pipeline_op.hpp"
#include "kernels/gemm_pipelines/slice_runs.hpp"
#include "kernels/ops.hpp"

namespace nb {
namespace gemm_gn_min_bias {

Args args_of(const Problem& p, const DeviceTensors& t) {
  const linear::Shape s = linear::shape_of(p);
  const bool bf16 = p.dtype == DType::bf16;
  return {linear::operands_of(p, t), bf16 ? nullptr : t.in(kBias), t.in(kGamma), t.in(kBeta), t.in(kAddBias),
          t.out(kY), int(s.m), int(s.n), int(s.groups), float(s.eps), s.tf32(), linear::bf16_linear_of(p, t)};
}

namespace {

class GemmGnMinBiasOp final : public linear::ForwardPipelineOp {
 public:
  GemmGnMinBiasOp() {
    for (auto& v : make_variants()) add_variant(std::move(v));
  }
  std::string name() const override { return "gemm_gn_min_bias"; }
  std::string formula() const override {
    return "out = min_c(groupnorm_G(x W^T + b)) + bias, bias (1,N,1,1): the (M,1) minimum broadcasts to an "
           "output of shape (1,N,M,1)";
  }
  std::vector<ParamDecl> param_decls() const override { return linear::param_decls(false, true); }
  std::string check(const Params& p) const override { return linear::check_params(p, false, true); }
  std::vector<NamedProblem> named_problems() const override {
    const auto named = linear::named_with_bf16;
    return {named({{"m", 128}, {"n", 256}, {"k", 512}, {"g", 8}}, {"kb"}, "KernelBench L2#75, original size"),
            named({{"m", 1024}, {"n", 8192}, {"k", 8192}, {"g", 512}}, {"kb"}, "KernelBench L2#75, enlarged"),
            named({{"m", 64}, {"n", 96}, {"k", 128}, {"g", 6}}, {"quick"}, "small, groups of 16"),
            named({{"m", 127}, {"n", 33}, {"k", 1001}, {"g", 3}}, {"quick"}, "odd M, N, K; groups of 11"),
            named({{"m", 2}, {"n", 384}, {"k", 67}, {"g", 4}}, {"quick"}, "M = 2; groups of 96 span tiles"),
            named({{"m", 300}, {"n", 520}, {"k", 264}, {"g", 65}}, {"quick"},
                  "N over two tiles, groups of 8, K a multiple of 8 (not of 32)")};
  }

  std::vector<TensorDecl> tensors(const Problem& p) const override {
    const linear::Shape s = linear::shape_of(p);
    using R = TensorRole;
    const DType operands = storage_type(p.dtype);  // bf16 problems: x, W and b in bf16
    return {{"x", R::input, s.m * s.k, {}, operands},
            {"weight", R::input, s.n * s.k, {}, operands},
            {"bias", R::input, s.n, {}, operands},
            {"gamma", R::input, s.n},
            {"beta", R::input, s.n},
            {"add_bias", R::input, s.n},
            {"y", R::output, s.n * s.m}};
  }

  std::vector<InputDraw> input_draws(const Problem& p, Distribution d) const override {
    std::vector<InputDraw> draws = linear::linear_draws(linear::shape_of(p), d);
    draws.insert(draws.end(), {InputDraw::uniform(kGamma, 0.5f, 1.5f, 4), InputDraw::uniform(kBeta, -0.5f, 0.5f, 5),
                               InputDraw::uniform(kAddBias, -1.0f, 1.0f, 6)});
    return draws;
  }

  void reference_from_gemm(const Problem& p, const HostTensors& in, std::vector<double> z,
                           ReferenceTensors& out) const override {
    const linear::Shape s = linear::shape_of(p);
    // bf16 (autocast) rounds h itself, tf32 each product: the errors the amplification measures.
    const bool rounds_output = p.dtype == DType::bf16;
    const std::vector<double> h = rounds_output ? z : std::vector<double>{};
    // A group whose mean is large against its spread amplifies the GEMM's rounding of g.
    std::vector<double> invstd(std::size_t(s.m * s.groups));
    out.condition = linear::groupnorm_rows(s, z, in[kGamma].data(), in[kBeta].data(), invstd.data());
    std::vector<double>& y = out[kY];
    std::vector<std::int64_t> argmin(std::size_t(s.m), -1);
    for (std::int64_t r = 0; r < s.m; ++r) {
      double mn = INFINITY;  // torch.min: a NaN anywhere in the row wins
      for (std::int64_t c = 0; c < s.n && !std::isnan(mn); ++c) {
        const double v = z[std::size_t(r * s.n + c)];
        if (std::isnan(v) || v < mn) mn = v, argmin[std::size_t(r)] = std::isnan(v) ? -1 : c;
      }
      for (std::int64_t c = 0; c < s.n; ++c) y[std::size_t(c * s.m + r)] = mn + double(in[kAddBias][std::size_t(c)]);
    }
    const linear::OperandNorms norms =
        rounds_output ? linear::OperandNorms{} : linear::operand_norms(s, in[kX].data(), in[kWeight].data());
    const linear::RoundingErrors e =
        rounds_output ? linear::output_errors(s, h) : linear::product_errors(s, norms, nullptr);
    out.operand_amplification.assign(
        kTensorCount,
        linear::group_minimum_amplification(s, e, in[kGamma].data(), invstd.data(), argmin.data(), y.data()));
  }

  bool has_reference_program() const override { return true; }
  ReferenceConditions reference_program(const Problem& p, const ProgramTensors& t, const ProgramReference& out,
                                        Executor& ex) const override {
    const linear::Shape s = linear::shape_of(p);
    const gpu::LinearOperands lin{t.in(kX), t.in(kWeight), t.in(kBias), s.m, s.n, s.k, p.dtype == DType::bf16};
    const gpu::GroupMinimumConditions own = ex.visit([&](auto& e) {
      return gpu::gemm_gn_min_bias(e, lin, s.groups, t.f32(kGamma), t.f32(kBeta), t.f32(kAddBias), s.eps, out[kY]);
    });
    ReferenceConditions c;
    c.instance = own.condition;
    c.operand_amplification.assign(kTensorCount, own.operand_amplification);
    return c;
  }

  // A slice is a row of the batch: its GroupNorm, minimum and the column of the (N, M) output that
  // holds it. The slice problem has m = the sampled rows, N and G as they are.
  std::vector<SliceFamily> slice_families(const Problem& p) const override {
    const linear::Shape s = linear::shape_of(p);
    SliceFamily f;
    f.unit = "row";
    f.count = s.m;
    f.problem = problem_with_slices(*this, p, "m");
    f.runs = [s](int tensor, const std::vector<std::int64_t>& slices) {
      if (tensor == kX) return linear::stretch_per_slice(slices, s.k, s.k);
      if (tensor == kY) return linear::element_per_line(slices, s.n, s.m);
      return linear::whole(tensor == kWeight ? s.n * s.k : s.n);
    };
    f.slice_of = [s](int tensor, std::int64_t element) -> std::int64_t {
      if (tensor == kX) return element / s.k;
      if (tensor == kY) return element % s.m;
      return -1;
    };
    f.checked = {kY};
    return {f};
  }

  WorkModel work(const Problem& p) const override {
    const linear::Shape s = linear::shape_of(p);
    const double mn = double(s.m) * double(s.n);
    const double operand = double(dtype_size(storage_type(p.dtype)));  // 2 for bf16 x and W
    return {operand * (double(s.m) * double(s.k) + double(s.n) * double(s.k)) + 4.0 * (mn + 4.0 * double(s.n)),
            s.gemm_flops() + 8.0 * mn,
            "read x, W (bf16: 2 bytes each) + write the (1,N,M,1) output: 4*(M*K + N*K + N*M) (+ 4 vectors of N); "
            "g itself need never be written; flops 2*M*N*K + 8 per GEMM output"};
  }

  double normalization_length(const linear::Shape& s) const override { return double(s.group_size()); }


  std::vector<StressDistribution> stress() const override {
    return {{Distribution::wide, "squared deviations of g (x up to 1e20 times W) overflow fp32"}};
  }
  std::vector<NotApplicable> not_applicable() const override {
    return {{"cudnn", "cuDNN 9.14 refuses GroupNorm on the H100 (docs/cudnn-groupnorm.md); its matmul fusion "
                      "probe covers column statistics, not per-row groups (docs/cudnn-matmul-fusion.md)"}};
  }
};

}  // namespace
}  // namespace gemm_gn_min_bias

std::unique_ptr<OpSpec> make_gemm_gn_min_bias_op() { return std::make_unique<gemm_gn_min_bias::GemmGnMinBiasOp>(); }

}  // namespace nb
