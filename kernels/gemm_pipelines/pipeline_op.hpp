#pragma once
// What every GEMM pipeline op shares: its precisions, the cuBLAS GEMM alone as the problem's
// compute ceiling, the tolerance growth, and where x and W sit in its tensor list.
#include "harness/op_spec.hpp"
#include <cuda_runtime.h>

#include "kernels/gemm/operands.hpp"
#include "kernels/gemm_pipelines/linear_shape.hpp"

namespace nb::linear {

// Every pipeline op declares x, W and the linear bias first.
enum LinearTensor : int { kX = 0, kWeight = 1, kLinearBias = 2 };

// x and W as fp32 (fp32 and tf32 problems); null pointers for a bf16 problem, whose variants read
// bf16_linear_of instead.
gemm::Operands operands_of(const Problem& p, const DeviceTensors& t);

// A bf16 problem's x, W and b (autocast's storage); null pointers for the other precisions.
struct Bf16Linear {
  gemm::Bf16Operands op{};
  const __nv_bfloat16* bias = nullptr;
};
Bf16Linear bf16_linear_of(const Problem& p, const DeviceTensors& t);
// Whether a variant whose GEMM reads fp32 operands runs `p`: not a bf16 problem (its GEMM needs
// bf16 operands, which that variant's mainloop does not read yet).
Support fp32_operands_support(const Problem& p);

// The draws of x from the distribution and of W, b as nn.Linear initialises them:
// U(-1/sqrt(K), 1/sqrt(K)).
std::vector<InputDraw> linear_draws(const Shape& s, Distribution d);
// Its parts, for an op whose tensor 2 is not the bias (the backward): x and W (tensors kX and
// kWeight), and the bias's draw, whose tensor index such an op ignores (it draws b from the draw's
// element rule, b being no tensor of it).
std::vector<InputDraw> linear_operand_draws(const Shape& s, Distribution d);
InputDraw linear_bias_draw(const Shape& s);
// |U[lo, hi)| with a random sign per element: a per-column scale that is neither 1 nor positive.
void draw_signed_uniform(std::vector<float>& v, float lo, float hi, std::uint64_t seed, std::uint32_t magnitude_salt,
                         std::uint32_t sign_salt);

// Whether a naive variant runs `p`: it computes in fp32 FMA whatever the problem's precision, so
// on a tf32 problem it would launch the fp32 problem's kernel on the same shape again (1.1 s a
// launch at 16384x4096x4096, 11 launches a case). It declines tf32, and a tf32 row's speedup over
// naive is taken from the fp32 problem's naive row (harness/report/case_metrics.cpp).
// A bf16 problem's naive variant (autocast's roundings, its own computation) runs up to 2^30
// products (KernelBench's original sizes, the quick suite) and declines the larger ones likewise.
Support naive_support(const Problem& p);
inline constexpr double kNaiveBf16Products = 1073741824.0;  // 2^30

// The linear layer into an fp32 h (m, n) on cuBLAS at the problem's precision, the bias first
// copied into its rows and the GEMM accumulated onto it (PyTorch's addmm): fp32 and tf32 operands,
// or a bf16 problem's bf16 ones with fp32 accumulation and h kept in fp32 (not rounded to bf16 as
// autocast's addmm output is: more accurate, so the same verdict). `bias_scratch`: n floats.
void cublas_linear(const Problem& p, const gemm::Operands& op, const float* bias, const Bf16Linear& bf16, float* h,
                   float* bias_scratch, cudaStream_t stream);

class PipelineOp : public OpSpec {
 public:
  std::vector<DType> dtypes() const override { return {DType::f32, DType::tf32}; }
  // The fp32 accumulation, in both precisions: the normalization's own reduction plus the K-term
  // dot products counted as K / 64 terms (gemm_reduction_length / 64): an FMA chain over
  // mixed-sign products keeps its partial sums at the scale of the result, so its error grows far
  // slower than a sum of same-signed terms (the sqrt(n)/8 rule's model); a full K would let tf32
  // products pass at K = 8192 (docs/tolerance.md derives it and the tests hold it).
  double reduction_length(const Problem& p) const override;
  // fp32's bounds for the accumulation, in both precisions (tf32 keeps its discrimination
  // ceiling). A GEMM output's rounding error is absolute (a share of the row's scale, from
  // cancelling mixed-sign products), not relative to each element, so the elementwise floor is
  // half the output's rms: near-zero elements are held to the error their neighbours may have.
  Tolerance tolerance(const Problem& p) const override;
  // bf16's ceiling: autocast's roundings (h; BatchNorm's output before the softmax) amplified by A
  // = 1-6 on the well-conditioned draws put a right kernel's bound up to 3e-2; past 5e-2 a bound
  // could not tell a right kernel from one that drops a twentieth of its output's norm.
  static constexpr double kBf16PipelineCeiling = 5e-2;
  // tf32: 1.5 u_tf32 normwise and ten times that elementwise per unit of the operand
  // amplification. A correct tf32 kernel errs 0.26-0.63 u_tf32 A, bf16 products 1.8-4.9
  // (docs/tolerance.md, "Operand rounding"); fp32 rounds no operand. bf16 (autocast): the
  // rounding of h to bf16, at most u_bf16 |h_ij| each, measured by the same amplification of
  // those errors (baselines/cpu/operand_amplification.hpp): 1.25 u_bf16 normwise, 8 u_bf16
  // elementwise.
  Tolerance operand_rounding(const Problem& p) const override;
  std::unique_ptr<Variant> ceiling_kernel(const Problem& p) const override;

 protected:
  virtual double normalization_length(const Shape& s) const = 0;
  // The GEMM's reduction extent: K for the forward; the backward's GEMMs reduce over N and M.
  virtual double gemm_reduction_length(const Shape& s) const { return double(s.k); }
};

// The forward pipelines: nn.Linear, then a tail (the normalization and what follows) on its
// output h. They also run bf16 problems with autocast's storage (docs/notes/bf16-pipelines.md):
// x, W and b bf16, the statistics and y fp32.
class ForwardPipelineOp : public PipelineOp {
 public:
  std::vector<DType> dtypes() const override { return {DType::f32, DType::tf32, DType::bf16}; }
  // h = x W^T + b in float64 from the stored operands, then reference_from_gemm.
  void reference(const Problem& p, const HostTensors& in, ReferenceTensors& out) const override;
  // The tail's float64 reference on a given h (m, n), and the operand amplifications with it:
  // the tests feed it an emulated GEMM's h (autocast's bf16 h, a bf16 accumulation).
  virtual void reference_from_gemm(const Problem& p, const HostTensors& in, std::vector<double> h,
                                   ReferenceTensors& out) const = 0;
};

// A pipeline's problem in fp32, tf32 and bf16 (linear::named gives fp32 and tf32 alone).
NamedProblem named_with_bf16(Params params, std::vector<std::string> suites, std::string note);
// A pipeline's problem in bf16 alone (a shape that training runs under autocast).
NamedProblem bf16_named(Params params, std::vector<std::string> suites, std::string note);

}  // namespace nb::linear
