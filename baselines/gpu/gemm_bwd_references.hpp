#pragma once
// Float64 reference program of gemm_scale_bn_bwd, written for obviousness with the formulas and
// order of operations of baselines/cpu/gemm_bwd_reference.cpp, whose Eigen reference audits it:
// the four column sums by slice_sums, dh and dg one thread per element, dx = dg W and dW = dg^T x
// by the executor's double GEMM. Beside it, what the forward saved (the op's derived inputs) and
// the gradients' conditions (baselines/cpu/gemm_bwd_conditions.hpp). Every pointer is on the
// executor's side; x, W and g in their storage (bf16 in a bf16 problem), the rest fp32 (tf32
// problems store fp32 too).
#include <cstdint>

#include "baselines/cpu/gemm_bwd_ratios.hpp"
#include "harness/input_draw.hpp"
#include "harness/stored_value.hpp"

namespace nb::gpu {

// The forward's operands: x (m, k), W (n, k), s (n), and its bias b (n), which is no tensor of the
// backward: element c is bias.value(seed, c), the rule the host draws it by.
struct ForwardOperands {
  stored::Tensor x, weight;
  const float* scale;
  InputDraw bias;
  std::uint64_t seed;
  std::int64_t m, n, k;
  double eps;
};

// What the forward saved: g in its storage, the statistics as float.
struct ForwardSaved {
  stored::MutableTensor g;
  float *save_mean, *save_invstd;
};

// g = x W^T + b in float64 rounded to float and then to g's storage, then the float64 batch mean
// and 1 / sqrt(biased var + eps) of h = g * s per column from that g, rounded to float
// (linear::batch_statistics).
template <class Ex>
void forward_saved(Ex& ex, const ForwardOperands& forward, const ForwardSaved& saved);

// The backward's inputs (linear::BackwardInputs on the executor's side): x (m, k), W (n, k), g and
// dy (m, n), s, gamma and the saved statistics (n).
struct GemmBwdInputs {
  stored::Tensor x, weight;
  const float *scale, *gamma;
  stored::Tensor g;
  const float *save_mean, *save_invstd, *dy;
  std::int64_t m, n, k;
};

// The float64 gradients: dx (m, k), dW (n, k), db, ds, dgamma, dbeta (n).
struct GemmBwdGradients {
  double *dx, *dweight, *dbias, *dscale, *dgamma, *dbeta;
};

// The six gradients, as linear::backward_reference.
template <class Ex>
void gemm_scale_bn_backward(Ex& ex, const GemmBwdInputs& in, const GemmBwdGradients& out);

// Each gradient's condition, as linear::backward_conditions, from the inputs and the gradients
// this program computed.
template <class Ex>
linear::BackwardConditions gemm_scale_bn_backward_conditions(Ex& ex, const GemmBwdInputs& in,
                                                             const GemmBwdGradients& reference);

}  // namespace nb::gpu
