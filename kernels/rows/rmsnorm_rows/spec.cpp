// The op spec of rmsnorm_rows (LLM RMSNorm with a weight): parameters, named problems, tensors,
// inputs, the float64 reference and the byte model.
#include "kernels/rows/rmsnorm_rows/spec.hpp"

#include <sstream>

#include "baselines/cpu/rmsnorm_reference.hpp"
#include "baselines/gpu/row_references.hpp"
#include "harness/validation/executor.hpp"
#include "kernels/rms/rms_contract.hpp"
#include "harness/op_spec.hpp"
#include "kernels/ops.hpp"

namespace nb::rmsnorm_rows {
namespace {

// Elements of x (and of y): every offset and byte count stays far inside int64 and size_t.

Params rows(double m, double n) { return {{"m", m}, {"n", n}}; }

const std::vector<DType> kNarrow = {DType::bf16, DType::f16};
const std::vector<DType> kEveryStorage = {DType::f32, DType::bf16, DType::f16};

std::vector<NamedProblem> kb_problems() {
  return {{rows(4096, 4096), {"kb", "llm"}, "4096 tokens x hidden 4096"},
          {rows(32768, 8192), {"kb", "llm"}, "32768 tokens x hidden 8192"}};
}

// Row length scaling at a fixed 2^26 elements (256 MiB of x), plus an odd length.
std::vector<NamedProblem> sweep_problems() {
  std::vector<NamedProblem> out;
  for (double n = 256; n <= 262144; n *= 2)
    out.push_back({rows(67108864 / n, n), {"sweep"}, "row length scaling at M*N = 2^26"});
  out.push_back({rows(16384, 4097), {"sweep"}, "odd row length: no 16-byte packs"});
  return out;
}

// The LLM shapes in the 2-byte types, as models run them. The bf16 sweep below holds (32768, 8192)
// and (16384, 16384) in bf16 (M*N = 2^28), so those two are named here in fp16 only: one id, one
// problem.
std::vector<NamedProblem> llm_problems() {
  return {{rows(4096, 4096), {"llm"}, "4096 tokens x hidden 4096", kNarrow},
          {rows(32768, 8192), {"llm"}, "32768 tokens x hidden 8192", {DType::f16}},
          {rows(16384, 16384), {"llm"}, "16384 tokens x hidden 16384", {DType::f16}}};
}

// Row length scaling in bf16 at M*N = 2^28 (512 MiB of x, 1 GiB moved): 256 to 262144.
std::vector<NamedProblem> bf16_sweep_problems() {
  std::vector<NamedProblem> out;
  for (double n = 256; n <= 262144; n *= 2) {
    std::string note = "bf16 row length scaling at M*N = 2^28";
    if (n == 8192) note += "; 32768 tokens x hidden 8192";
    if (n == 16384) note += "; 16384 tokens x hidden 16384";
    out.push_back({rows(268435456 / n, n), {"llm", "sweep"}, note, {DType::bf16}});
  }
  return out;
}

// Small and odd shapes for tests and the sanitizer, in every storage type, each under 2M
// elements. Multi-row shapes have at least 4 rows, so `special` (3 NaN/Inf planted) always leaves
// a clean row to compare. Row plans named for bf16/fp16 (packs of 8) where they differ from fp32.
std::vector<NamedProblem> quick_problems() {
  std::vector<NamedProblem> out = {
      {rows(1, 1), {"quick"}, "one element"},
      {rows(7, 3), {"quick"}, "N=3"},
      {rows(7, 31), {"quick"}, "N=31: less than a warp"},
      {rows(5, 33), {"quick"}, "N=33: one past a warp"},
      {rows(5, 63), {"quick"}, "N=63"},
      {rows(7, 65), {"quick"}, "N=65"},
      {rows(7, 1000), {"quick"}, "N=1000: 16-byte packs, lane groups"},
      {rows(7, 1004), {"quick"}, "N=1004: packs of 4 floats; single bf16/fp16 elements"},
      {rows(64, 256), {"quick"}, "many short rows"},
      {rows(1, 4096), {"quick"}, "one row, one block"},
      {rows(5, 4097), {"quick"}, "N=4097: odd, single elements, 16 per thread"},
      {rows(6, 8200), {"quick"}, "N=8200: registers, one block of 288 threads"},
      {rows(4, 16384), {"quick"}, "N=16384: registers, one block of 512 threads (the most a block holds)"},
      {rows(4, 20000), {"quick"}, "N=20000: staged, 4 blocks (fp32); held, 320 threads x 64 (bf16/fp16)"},
      {rows(4, 32768), {"quick"}, "N=32768: held, 512 threads x 64, the most (bf16/fp16); staged (fp32)"},
      {rows(4, 40008), {"quick"}, "N=40008: held split, 320 threads x 128 (bf16/fp16); staged, 8 blocks (fp32)"},
      {rows(4, 65536), {"quick"}, "N=65536: held split, 512 threads x 128, the most (bf16/fp16); staged (fp32)"},
      {rows(4, 131072), {"quick"}, "N=131072: staged over a cluster of 8"},
      {rows(4, 65537), {"quick"}, "N=65537: odd, registers over a cluster of 8"},
      {rows(4, 262144), {"quick"}, "N=262144: staged, 64 KB slices (bf16/fp16); registers over 8 blocks (fp32)"},
      {rows(4, 262147), {"quick"}, "N=262147: odd and too long for registers: streamed"},
      {rows(1, 524288), {"quick"}, "N=524288: too long for registers: streamed"}};
  for (auto& p : out) p.dtypes = kEveryStorage;
  return out;
}

class RmsNormRowsOp final : public OpSpec {
 public:
  RmsNormRowsOp() {
    for (auto& v : make_variants()) add_variant(std::move(v));
  }

  std::string name() const override { return "rmsnorm_rows"; }
  std::string formula() const override { return "y = x / sqrt(mean(x^2 over the last dim) + eps) * w, x of shape (M,N)"; }

  std::vector<DType> dtypes() const override { return kEveryStorage; }

  std::vector<ParamDecl> param_decls() const override {
    return {{"m", true, 0, true, 1, 1e12, "rows M (tokens), >= 1"},
            {"n", true, 0, true, 1, 1e12, "row length N (hidden size), the reduced dim, >= 1"},
            {"eps", false, 1e-5, false, 0, 1, "added to the mean square before the square root, 0..1"}};
  }

  std::string check(const Params& p) const override {
    return rms::element_limit(p.real("m") * p.real("n"), "M*N");
  }

  std::vector<NamedProblem> named_problems() const override {
    return rms::all_suites({kb_problems(), sweep_problems(), llm_problems(), bf16_sweep_problems(), quick_problems()});
  }

  std::vector<TensorDecl> tensors(const Problem& p) const override {
    const Shape s = Shape::of(p);
    const DType storage = storage_type(p.dtype);
    return {{"x", TensorRole::input, s.elements(), {s.m, s.n}, storage},
            {"w", TensorRole::input, s.n, {s.n}, storage},
            {"y", TensorRole::output, s.elements(), {s.m, s.n}, storage}};
  }

  std::vector<InputDraw> input_draws(const Problem&, Distribution d) const override {
    return {InputDraw::of(X, d, 1), InputDraw::uniform(W, 0.5f, 1.5f, 2)};
  }

  void reference(const Problem& p, const HostTensors& in, ReferenceTensors& out) const override {
    const Shape s = Shape::of(p);
    cpu::rmsnorm_rows_reference(in[X].data(), in[W].data(), out[Y].data(), s.m, s.n, p.real("eps"));
  }

  bool has_reference_program() const override { return true; }
  ReferenceConditions reference_program(const Problem& p, const ProgramTensors& t, const ProgramReference& out,
                                        Executor& ex) const override {
    const Shape s = Shape::of(p);
    ex.visit([&](auto& e) { gpu::rmsnorm_rows(e, t.in(X), t.in(W), out[Y], s.m, s.n, p.real("eps")); });
    return {};
  }
  std::vector<SliceFamily> slice_families(const Problem& p) const override {
    using L = RowLayout;
    return {row_slices(*this, p, "m", p.dim("n"), {L::rows, L::shared, L::rows}, {Y})};
  }

  double reduction_length(const Problem& p) const override { return double(p.dim("n")); }

  WorkModel work(const Problem& p) const override {
    const Shape s = Shape::of(p);
    const double elements = static_cast<double>(s.elements());
    const double size = static_cast<double>(dtype_size(storage_type(p.dtype)));
    return {size * (2.0 * elements + static_cast<double>(s.n)), 4.0 * elements,
            "read x + write y + read w, each in its storage type: s * (2*M*N + N) bytes with s = 4 (fp32) or 2 "
            "(bf16, fp16); flops: square-add, scale, weight: 4 per element"};
  }

  std::vector<StressDistribution> stress() const override { return {rms::wide_overflows("the whole row")}; }
  std::vector<NotApplicable> not_applicable() const override { return {rms::welford_not_applicable()}; }
};

}  // namespace

}  // namespace nb::rmsnorm_rows

namespace nb {
std::unique_ptr<OpSpec> make_rmsnorm_rows_op() { return std::make_unique<rmsnorm_rows::RmsNormRowsOp>(); }
}  // namespace nb
