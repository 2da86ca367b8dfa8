// The op spec of layernorm_rows (LLM LayerNorm with weight and bias, saving mean and rstd):
// parameters, named problems, tensors, inputs, the float64 reference, the condition and the byte
// model.
#include "kernels/rows/layernorm_rows/spec.hpp"

#include <string>

#include "baselines/cpu/groupnorm_reference.hpp"
#include "baselines/cpu/layernorm_reference.hpp"
#include "baselines/gpu/row_references.hpp"
#include "harness/op_spec.hpp"
#include "harness/validation/executor.hpp"
#include "kernels/ops.hpp"
#include "kernels/rms/rms_contract.hpp"

namespace nb::layernorm_rows {
namespace {

const std::vector<DType> kEveryType = {DType::f32, DType::bf16, DType::f16};

Params rows(double m, double n) { return {{"m", m}, {"n", n}}; }

NamedProblem in_every_type(double m, double n, std::vector<std::string> suites, std::string note) {
  return {rows(m, n), std::move(suites), std::move(note), kEveryType};
}

// Row length scaling in bf16 at a fixed 2^28 elements (512 MiB of x). Its N = 8192 and N = 16384
// rows are the llm shapes (32768, 8192) and (16384, 16384), so those two are listed here in bf16.
std::vector<NamedProblem> sweep_problems() {
  std::vector<NamedProblem> out;
  for (double n = 256; n <= 262144; n *= 2) {
    const double m = 268435456 / n;
    std::string note = "bf16 row length scaling at M*N = 2^28";
    if (n == 8192 || n == 16384)
      note = std::to_string(int(m)) + " tokens x hidden " + std::to_string(int(n)) + "; " + note;
    out.push_back({rows(m, n), {"llm", "sweep"}, note, {DType::bf16}});
  }
  return out;
}

std::vector<NamedProblem> llm_problems() {
  const std::vector<DType> not_in_sweep = {DType::f32, DType::f16};  // bf16: sweep_problems()
  return {in_every_type(4096, 4096, {"llm"}, "4096 tokens x hidden 4096"),
          {rows(32768, 8192), {"llm"}, "32768 tokens x hidden 8192", not_in_sweep},
          {rows(16384, 16384), {"llm"}, "16384 tokens x hidden 16384", not_in_sweep}};
}

// Small and odd shapes for tests and the sanitizer, each under 2M elements, in every type. They
// have at least 4 rows where that fits, so `special` (3 NaN/Inf planted) leaves a clean row.
// The notes name register_row's layout (rmsnorm_rows' row plan; 16-byte packs: 4 fp32 or 8 bf16/fp16).
std::vector<NamedProblem> quick_problems() {
  const std::vector<std::string> quick = {"quick"};
  return {in_every_type(5, 1, quick, "N=1: variance 0, y = b"),
          in_every_type(7, 3, quick, "N=3"),
          in_every_type(7, 31, quick, "N=31: less than a warp"),
          in_every_type(5, 33, quick, "N=33: one past a warp"),
          in_every_type(7, 1000, quick, "N=1000: 16-byte packs, lane groups"),
          in_every_type(7, 1004, quick, "N=1004: packs of 4 in fp32, single values in bf16/fp16"),
          in_every_type(64, 256, quick, "many short rows"),
          in_every_type(4, 4096, quick, "one block per row"),
          in_every_type(5, 4097, quick, "N=4097: odd, single values"),
          in_every_type(6, 8200, quick, "N=8200: registers, one block of 288 threads"),
          in_every_type(4, 16384, quick, "N=16384: registers, one block of 512 threads (the most a block holds)"),
          in_every_type(4, 20000, quick, "N=20000: staged, 4 blocks (fp32); held, 320 threads x 64 (bf16/fp16)"),
          in_every_type(4, 32768, quick, "N=32768: held, 512 threads x 64, the most (bf16/fp16); staged (fp32)"),
          in_every_type(4, 40008, quick, "N=40008: staged, 4 blocks (bf16/fp16: no held split), 8 blocks (fp32)"),
          in_every_type(4, 65537, quick, "N=65537: odd, registers over a cluster of 8"),
          in_every_type(4, 131072, quick, "N=131072: staged over a cluster of 8"),
          in_every_type(4, 262144, quick, "N=262144: staged, 64 KB slices (bf16/fp16); registers over 8 blocks (fp32)"),
          in_every_type(4, 262147, quick, "N=262147: odd and too long for registers: streamed"),
          in_every_type(3, 524296, quick, "N=524296: streamed in every type (3 rows: under 2M elements)")};
}

class LayerNormRowsOp final : public OpSpec {
 public:
  LayerNormRowsOp() {
    for (auto& v : make_variants()) add_variant(std::move(v));
  }

  std::string name() const override { return "layernorm_rows"; }
  std::string formula() const override {
    return "y = (x - mean) / sqrt(var + eps) * w + b over the last dim of x (M,N), biased var; saves mean, rstd";
  }
  std::vector<DType> dtypes() const override { return kEveryType; }

  std::vector<ParamDecl> param_decls() const override {
    return {{"m", true, 0, true, 1, 1e12, "rows M (tokens), >= 1"},
            {"n", true, 0, true, 1, 1e12, "row length N (hidden size), the reduced dim, >= 1"},
            {"eps", false, 1e-5, false, 0, 1, "added to the variance before the square root, 0..1"}};
  }

  std::string check(const Params& p) const override {
    return rms::element_limit(p.real("m") * p.real("n"), "M*N");
  }

  std::vector<NamedProblem> named_problems() const override {
    return rms::all_suites({llm_problems(), sweep_problems(), quick_problems()});
  }

  std::vector<TensorDecl> tensors(const Problem& p) const override {
    const Shape s = Shape::of(p);
    const DType stored = storage_type(p.dtype);
    return {{"x", TensorRole::input, s.elements(), {s.m, s.n}, stored},
            {"w", TensorRole::input, s.n, {s.n}, stored},
            {"b", TensorRole::input, s.n, {s.n}, stored},
            {"y", TensorRole::output, s.elements(), {s.m, s.n}, stored},
            {"mean", TensorRole::output, s.m, {s.m}, DType::f32},
            {"rstd", TensorRole::output, s.m, {s.m}, DType::f32}};
  }

  std::vector<InputDraw> input_draws(const Problem&, Distribution d) const override {
    return {InputDraw::of(X, d, 1), InputDraw::uniform(W, 0.5f, 1.5f, 2), InputDraw::uniform(B, -0.5f, 0.5f, 3)};
  }

  void reference(const Problem& p, const HostTensors& in, ReferenceTensors& out) const override {
    const Shape s = Shape::of(p);
    cpu::layernorm_rows_reference(in[X].data(), in[W].data(), in[B].data(), s.m, s.n, p.real("eps"),
                                  {out[Y].data(), out[MEAN].data(), out[RSTD].data()});
  }

  bool has_reference_program() const override { return true; }
  ReferenceConditions reference_program(const Problem& p, const ProgramTensors& t, const ProgramReference& out,
                                        Executor& ex) const override {
    const Shape s = Shape::of(p);
    ReferenceConditions c;
    c.instance = ex.visit([&](auto& e) {
      return gpu::layernorm_rows(e, t.in(X), t.in(W), t.in(B), out[Y], out[MEAN], out[RSTD], s.m, s.n, p.real("eps"));
    });
    return c;
  }
  std::vector<SliceFamily> slice_families(const Problem& p) const override {
    using L = RowLayout;
    return {row_slices(*this, p, "m", p.dim("n"), {L::rows, L::shared, L::shared, L::rows, L::per_row, L::per_row},
                       {Y, MEAN, RSTD})};
  }

  double reduction_length(const Problem& p) const override { return double(p.dim("n")); }

  // x - mean in fp32 carries ~u |x|, and y divides it by the standard deviation: the largest
  // sqrt(mean(x^2) / (var + eps)) ~ sqrt(1 + (mean * rstd)^2) over the rows. A row is a group of
  // GroupNorm with one channel of N positions, so groupnorm's condition measures it.
  double condition(const Problem& p, const HostTensors& in) const override {
    const Shape s = Shape::of(p);
    return cpu::groupnorm_condition({s.m, 1, s.n, 1, p.real("eps")}, in[X].data());
  }

  WorkModel work(const Problem& p) const override {
    const Shape s = Shape::of(p);
    const double e = double(s.elements()), stored = double(dtype_size(storage_type(p.dtype)));
    return {stored * (2.0 * e + 2.0 * double(s.n)) + 4.0 * 2.0 * double(s.m), 8.0 * e,
            "read x + write y + read w, b in the storage type (s = 4, or 2 for bf16/fp16) + write mean, rstd in "
            "fp32: s * (2*M*N + 2*N) + 8*M bytes; x read once; flops: 8 per element"};
  }

  std::vector<StressDistribution> stress() const override {
    return {{Distribution::offset,
             "sum / sum-of-squares statistics cancel in fp32 when |mean| >> std (E[x^2] - mean^2 loses all "
             "digits at 1e4 + N(0,1)); Welford or two-pass statistics pass"},
            {Distribution::tiny_var,
             "variance 1e-6 at mean 1: E[x^2] - mean^2 keeps about one of fp32's seven digits"},
            {Distribution::wide,
             "squares of |x| up to 1e20 overflow fp32 (1e40 > FLT_MAX): an fp32 variance becomes Inf and y collapses "
             "to b; only double sums or a rescaling before squaring pass"}};
  }
};

}  // namespace

}  // namespace nb::layernorm_rows

namespace nb {
std::unique_ptr<OpSpec> make_layernorm_rows_op() { return std::make_unique<layernorm_rows::LayerNormRowsOp>(); }
}  // namespace nb
