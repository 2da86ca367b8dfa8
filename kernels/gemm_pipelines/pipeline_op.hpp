#pragma once
// What every GEMM pipeline op shares: both precisions, the cuBLAS GEMM alone as the problem's
// compute ceiling, the tolerance growth, and where x and W sit in its tensor list.
#include "harness/op_spec.hpp"
#include "kernels/gemm/operands.hpp"
#include "kernels/gemm_pipelines/linear_shape.hpp"

namespace nb::linear {

// Every pipeline op declares x, W and the linear bias first.
enum LinearTensor : int { kX = 0, kWeight = 1, kLinearBias = 2 };

gemm::Operands operands_of(const Problem& p, const DeviceTensors& t);

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
Support naive_support(const Problem& p);

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
  // tf32: 1.5 u_tf32 normwise and ten times that elementwise per unit of the operand
  // amplification. A correct tf32 kernel errs 0.26-0.63 u_tf32 A, bf16 products 1.8-4.9
  // (docs/tolerance.md, "Operand rounding"); fp32 rounds no operand.
  Tolerance operand_rounding(const Problem& p) const override;
  std::unique_ptr<Variant> ceiling_kernel(const Problem& p) const override;

 protected:
  virtual double normalization_length(const Shape& s) const = 0;
  // The GEMM's reduction extent: K for the forward; the backward's GEMMs reduce over N and M.
  virtual double gemm_reduction_length(const Shape& s) const { return double(s.k); }
};

}  // namespace nb::linear
