#include "kernels/softmax/spec.hpp"

#include <string>

#include "baselines/cpu/softmax_reference.hpp"
#include "baselines/gpu/row_references.hpp"
#include "harness/validation/executor.hpp"

namespace nb {
namespace softmax {

Shape shape_of(const Problem& p) { return {p.dim("m"), p.dim("n")}; }

namespace {

class SoftmaxSpec final : public OpSpec {
 public:
  SoftmaxSpec() {
    for (auto& v : make_variants()) add_variant(std::move(v));
  }

  std::string name() const override { return "softmax"; }
  std::string formula() const override { return "y[m,:] = exp(x[m,:] - max_m) / sum(exp(x[m,:] - max_m))"; }

  std::vector<ParamDecl> param_decls() const override {
    return {{"m", true, 0, true, 1, 1e9, "rows"}, {"n", true, 0, true, 1, 1e9, "row length (softmax over it)"}};
  }

  std::vector<DType> dtypes() const override { return {DType::f32, DType::bf16, DType::f16}; }

  std::vector<NamedProblem> named_problems() const override {
    const std::vector<DType> every = {DType::f32, DType::bf16, DType::f16};
    std::vector<NamedProblem> v = {
        {{{"m", 16}, {"n", 16384}}, {"kb"}, "KernelBench L1#23, original size"},
        {{{"m", 4096}, {"n", 393216}}, {"kb"}, "KernelBench L1#23, enlarged: 1.5 MB rows"},
        {{{"m", 3}, {"n", 1}}, {"quick"}, "N = 1: every output is 1", every},
        {{{"m", 5}, {"n", 3}}, {"quick"}, "tiny odd row", every},
        {{{"m", 37}, {"n", 256}}, {"quick"}, "short rows: lane groups of 8, 16 rows per block, the last one part empty",
         every},
        {{{"m", 7}, {"n", 1000}}, {"quick"}, "odd row, N % 4 = 0 but not a power of two", every},
        {{{"m", 5}, {"n", 1002}}, {"quick"}, "packs of 2 elements (N % 4 = 2)", every},
        {{{"m", 6}, {"n", 1004}}, {"quick"}, "packs of 4 elements: 16 bytes in fp32, 8 in bf16 and fp16", every},
        {{{"m", 4}, {"n", 4097}}, {"quick"}, "odd row just above the warp variant's bound", every},
        {{{"m", 9}, {"n", 6000}}, {"quick"}, "dispatch: a block of 192 threads per row, in registers", every},
        {{{"m", 4}, {"n", 12000}}, {"quick"}, "dispatch: onchip in fp32 (48 KB rows), registers in bf16 and fp16",
         every},
        {{{"m", 5}, {"n", 20008}}, {"quick"}, "dispatch: bf16/fp16 held as stored (320 threads x 64), fp32 onchip",
         every},
        {{{"m", 4}, {"n", 32768}}, {"quick"}, "dispatch: bf16/fp16 held (64 KB rows, 512 threads x 64), fp32 onchip",
         every},
        {{{"m", 4}, {"n", 40008}}, {"quick"}, "dispatch: bf16/fp16 held split (320 threads x 128), fp32 onchip",
         every},
        {{{"m", 3}, {"n", 65536}}, {"quick"}, "dispatch: bf16/fp16 held split, the most (512 x 128), fp32 onchip",
         every},
        {{{"m", 3}, {"n", 100000}}, {"quick"}, "row over one CTA's shared memory: cluster of 8 x 49 KB (fp32)", every},
        {{{"m", 3}, {"n", 393216}}, {"quick"}, "KB row length: cluster of 8 x 192 KB (fp32), 8 x 96 KB (bf16, fp16)",
         every},
        {{{"m", 2}, {"n", 300001}}, {"quick"}, "odd row over 8 x 96 KB (fp32): unaligned, cluster of 8 x 147 KB",
         every},
        {{{"m", 2}, {"n", 600000}}, {"quick"},
         "over one cluster in fp32 (onchip says no); 8 x 147 KB slices of the storage type in bf16 and fp16", every},
    };
    for (std::int64_t n = 256; n <= 65536; n *= 2)
      v.push_back({{{"m", 32768}, {"n", double(n)}}, {"sweep", "llm"}, "LLM-style rows, 32768 of them"});
    // 2^28 elements (512 MB each way); (32768, 8192) and (16384, 16384) are LLM shapes as well.
    for (std::int64_t n = 256; n <= 262144; n *= 2)
      v.push_back({{{"m", double((std::int64_t(1) << 28) / n)}, {"n", double(n)}},
                   {"llm", "sweep"},
                   "bf16 rows at M*N = 2^28",
                   {DType::bf16}});
    // The LLM shapes the bf16 sweep does not already hold in that dtype.
    v.push_back({{{"m", 4096}, {"n", 4096}}, {"llm"}, "LLM: 4096 tokens x 4096", {DType::bf16, DType::f16}});
    v.push_back({{{"m", 32768}, {"n", 8192}}, {"llm"}, "LLM: 32768 tokens x 8192", {DType::f16}});
    v.push_back({{{"m", 16384}, {"n", 16384}}, {"llm"}, "LLM: 16384 tokens x 16384", {DType::f16}});
    return v;
  }

  std::vector<TensorDecl> tensors(const Problem& p) const override {
    const Shape s = shape_of(p);
    const DType storage = storage_type(p.dtype);
    return {{"x", TensorRole::input, s.elements(), {s.m, s.n}, storage},
            {"y", TensorRole::output, s.elements(), {s.m, s.n}, storage}};
  }

  std::vector<InputDraw> input_draws(const Problem&, Distribution d) const override { return {InputDraw::of(kX, d, 0)}; }

  void reference(const Problem& p, const HostTensors& in, ReferenceTensors& out) const override {
    const Shape s = shape_of(p);
    cpu::softmax_reference(s.m, s.n, in[kX].data(), out[kY].data());
  }

  bool has_reference_program() const override { return true; }
  ReferenceConditions reference_program(const Problem& p, const ProgramTensors& t, const ProgramReference& out,
                                        Executor& ex) const override {
    const Shape s = shape_of(p);
    ex.visit([&](auto& e) { gpu::softmax_rows(e, t.in(kX), out[kY], s.m, s.n); });
    return {};
  }
  std::vector<SliceFamily> slice_families(const Problem& p) const override {
    return {row_slices(*this, p, "m", p.dim("n"), {RowLayout::rows, RowLayout::rows}, {kY})};
  }

  double reduction_length(const Problem& p) const override { return double(p.dim("n")); }

  WorkModel work(const Problem& p) const override {
    const double e = double(shape_of(p).elements());
    const double bytes = double(dtype_size(storage_type(p.dtype)));
    return {2.0 * bytes * e, 5.0 * e,
            "read x + write y: 2*" + std::to_string(int(bytes)) + "*M*N (x read once)"};
  }

  // condition() stays 1: a kernel that subtracts the row max is shift-invariant, so offset and
  // wide lose nothing beyond expf's few ulps. No stress() either: under wide the float64
  // reference is one-hot-ish and max-subtracting fp32 kernels match it (softmax_reference_test).
  // bf16 and fp16 compute in fp32 and round y once: storage_rounding covers it, and its absolute
  // allowance the fp16 outputs of long rows that fall below fp16's smallest normal.
};

}  // namespace
}  // namespace softmax

std::unique_ptr<OpSpec> make_softmax_op() { return std::make_unique<softmax::SoftmaxSpec>(); }

}  // namespace nb
